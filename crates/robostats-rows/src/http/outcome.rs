//! An HTTP result -> its outcome for a robots.txt fetch.
//!
//! Two classifications stand side by side so results compare both with
//! Google's behaviour and with published Common Crawl studies:
//!
//! * [`GoogleClass`]: the seeds' table (2xx conditional allow, 3xx redirect,
//!   4xx full allow including 401/403, 5xx full disallow; a failed or
//!   incomplete fetch counts as a server error, class `failed`), and
//!   `google_current_class`, which follows Google's current documentation
//!   where it differs (429 is treated like 5xx).
//! * [`CcClass`]: Common Crawl's `fetch_status_classify()` (robotstxt
//!   experiments): 200 success, 403 forbidden, 5xx/429 defer_visits, 3xx
//!   redirect, 400/404/410 notfound, 401 unauthorized, else other.

crate::table::labels! {
    /// Google's robots.txt outcome for an HTTP result.
    #[non_exhaustive]
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum GoogleClass {
        /// 2xx: the rules in the body decide.
        ConditionalAllow = "conditional_allow",
        /// 3xx: follow the redirect (up to 5 hops, then as 404).
        Redirect = "redirect",
        /// 4xx (401 and 403 included): crawl everything.
        FullAllow = "full_allow",
        /// 5xx: crawl nothing, for now.
        FullDisallow = "full_disallow",
        /// The fetch failed or its data is incomplete: the HTTP head cannot be
        /// read, the record is cut, the crawler marks it truncated for another
        /// reason than its size limit, or the status is outside 200-599.
        /// Google treats this like a server error.
        Failed = "failed",
    }
}

impl GoogleClass {
    /// The seeds' table for a status; `failed` when the fetch failed or its
    /// data is incomplete, whatever the status.
    pub fn of(status: u16, failed: bool) -> GoogleClass {
        match status {
            _ if failed => GoogleClass::Failed,
            200..=299 => GoogleClass::ConditionalAllow,
            300..=399 => GoogleClass::Redirect,
            400..=499 => GoogleClass::FullAllow,
            500..=599 => GoogleClass::FullDisallow,
            _ => GoogleClass::Failed,
        }
    }

    /// The class by Google's current documentation, where 429 (Too Many
    /// Requests) is treated like a server error.
    pub fn current(status: u16, failed: bool) -> GoogleClass {
        match status {
            429 if !failed => GoogleClass::FullDisallow,
            _ => GoogleClass::of(status, failed),
        }
    }
}

crate::table::labels! {
    /// Common Crawl's own status class (`fetch_status_classify`).
    #[non_exhaustive]
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum CcClass {
        /// 200.
        Success = "success",
        /// 403: CCBot abstains from the host.
        Forbidden = "forbidden",
        /// 5xx or 429: visits are deferred.
        DeferVisits = "defer_visits",
        /// 3xx.
        Redirect = "redirect",
        /// 400, 404, 410.
        Notfound = "notfound",
        /// 401.
        Unauthorized = "unauthorized",
        /// Anything else (other 2xx and 4xx, no readable status).
        Other = "other",
    }
}

impl CcClass {
    /// The class of a status code.
    pub fn of(status: Option<u16>) -> CcClass {
        match status {
            Some(200) => CcClass::Success,
            Some(403) => CcClass::Forbidden,
            Some(429) | Some(500..=599) => CcClass::DeferVisits,
            Some(300..=399) => CcClass::Redirect,
            Some(400 | 404 | 410) => CcClass::Notfound,
            Some(401) => CcClass::Unauthorized,
            _ => CcClass::Other,
        }
    }
}
