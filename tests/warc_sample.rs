//! The generated sample (samples/README.md) classified as its generator
//! intended. The source of truth for the expected counts is the generator's
//! own per-category counts: `python3 scripts/gen_corpus.py --out samples
//! --small --seed 1 --stats` prints them as JSON beside the file it writes
//! (status, redirect_kind, truncated, body, bom, encoding, size,
//! cache_control; samples/README.md lists the ones checked here). The
//! classes follow from them by the tables of docs/warc.md. The BOM,
//! encoding, size, truncation, Cache-Control and invalid UTF-8 counts are
//! also what warcio reads in the file (`tests/warc_expected.py`).

use std::collections::BTreeMap;

use robostats::classify::Capture;
use robostats::http::{Bom, CcClass, GoogleClass, RedirectKind};

use crate::warc_util::{captures, errors, read_file};

const SAMPLE: &str = "samples/CC-MAIN-20251107005800-20251107035800-00000.warc.gz";

fn count<K: Ord>(caps: &[&Capture], key: impl Fn(&Capture) -> Option<K>) -> BTreeMap<K, usize> {
    let mut m = BTreeMap::new();
    for c in caps {
        if let Some(k) = key(c) {
            *m.entry(k).or_default() += 1;
        }
    }
    m
}

#[test]
fn generated_sample_is_read_whole() {
    let items = read_file(SAMPLE);
    assert_eq!(errors(&items), []);
    let caps = captures(&items);
    assert_eq!(caps.len(), 700);
    assert!(
        caps.iter()
            .all(|c| c.crawl.as_deref() == Some("CC-MAIN-2025-47"))
    );
    assert!(
        caps.iter()
            .all(|c| c.warc_record_offset_in_member == 0 && c.warc_record_length.is_some())
    );
    assert!(
        caps.iter()
            .all(|c| !c.record_incomplete && c.url_protocol.is_some())
    );

    let status = count(&caps, |c| c.fetch_status);
    let want: BTreeMap<u16, usize> = [
        (200, 465),
        (204, 2),
        (301, 38),
        (302, 20),
        (307, 5),
        (308, 12),
        (400, 2),
        (401, 3),
        (403, 8),
        (404, 119),
        (406, 2),
        (410, 2),
        (418, 1),
        (429, 2),
        (451, 1),
        (500, 5),
        (502, 1),
        (503, 5),
        (504, 2),
        (520, 2),
        (521, 2),
        (522, 1),
    ]
    .into_iter()
    .collect();
    assert_eq!(status, want);
}

#[test]
fn statuses_give_the_generators_classes() {
    let items = read_file(SAMPLE);
    let caps = captures(&items);
    // Generator: 467 2xx, 3 of them 200s cut short (truncated time 2,
    // disconnect 1), which are `failed`; 140 4xx, 18 5xx, 75 3xx.
    let google = count(&caps, |c| Some(c.google_class.as_str()));
    assert_eq!(
        google,
        [
            ("conditional_allow", 464),
            ("failed", 3),
            ("full_allow", 140),
            ("full_disallow", 18),
            ("redirect", 75)
        ]
        .into_iter()
        .collect()
    );
    let current = count(&caps, |c| Some(c.google_current_class));
    assert_eq!(current[&GoogleClass::FullDisallow], 20, "429 like 5xx");
    assert_eq!(current[&GoogleClass::FullAllow], 138);
    assert_eq!(current[&GoogleClass::Failed], 3);
    // Common Crawl's class goes by the status alone: the 200s cut short are
    // successes.
    let cc = count(&caps, |c| Some(c.cc_class.as_str()));
    assert_eq!(
        cc,
        [
            ("defer_visits", 20),
            ("forbidden", 8),
            ("notfound", 123),
            ("other", 6),
            ("redirect", 75),
            ("success", 465),
            ("unauthorized", 3)
        ]
        .into_iter()
        .collect()
    );
    assert_eq!(CcClass::of(Some(999)), CcClass::Other);
}

#[test]
fn redirects_have_the_generators_kinds() {
    let items = read_file(SAMPLE);
    let caps = captures(&items);
    // Generator: https_upgrade 15, other_host 12, not_robots_path 18,
    // https_downgrade 3, missing_location 4 (no or an empty Location), www
    // 23 (www_added 8, www_removed 11, same_site 4: a subdomain sent to
    // www.<domain>).
    let kinds = count(&caps, |c| c.redirect_kind);
    assert_eq!(kinds[&RedirectKind::HttpsUpgrade], 15);
    assert_eq!(kinds[&RedirectKind::OtherHost], 12);
    assert_eq!(kinds[&RedirectKind::NotRobotsPath], 18);
    assert_eq!(kinds[&RedirectKind::HttpsDowngrade], 3);
    assert_eq!(kinds[&RedirectKind::MissingLocation], 4);
    let www = kinds[&RedirectKind::WwwAdded]
        + kinds[&RedirectKind::WwwRemoved]
        + kinds.get(&RedirectKind::SameSite).copied().unwrap_or(0);
    assert_eq!(www, 23);
    assert!(kinds[&RedirectKind::WwwAdded] > 0 && kinds[&RedirectKind::WwwRemoved] > 0);
    assert_eq!(
        kinds.values().sum::<usize>(),
        75,
        "every redirect has a kind"
    );
    // Every redirect has a target but those without a (non-empty) Location.
    assert!(
        caps.iter()
            .filter(|c| c.redirect_kind.is_some())
            .all(|c| c.fetch_redirect.is_some()
                == (c.redirect_kind != Some(RedirectKind::MissingLocation)))
    );
}

#[test]
fn truncated_captures_are_read_as_they_are() {
    let items = read_file(SAMPLE);
    let caps = captures(&items);
    // Generator: truncated length 2 (a robots.txt and an HTML page, each cut
    // at the 1 MiB fetch limit): read as they are; time 2 and disconnect 1
    // (200s cut short): `failed`, their record still complete.
    let truncated: BTreeMap<&str, Vec<&&Capture>> =
        caps.iter().fold(BTreeMap::new(), |mut m, c| {
            if let Some(t) = c.content_truncated.as_deref() {
                m.entry(t).or_insert_with(Vec::new).push(c);
            }
            m
        });
    let lens: BTreeMap<&str, usize> = truncated.iter().map(|(k, v)| (*k, v.len())).collect();
    assert_eq!(
        lens,
        [("disconnect", 1), ("length", 2), ("time", 2)]
            .into_iter()
            .collect()
    );
    for c in &truncated["length"] {
        assert_eq!(c.google_class, GoogleClass::ConditionalAllow, "{}", c.url);
        assert_eq!(c.payload_length, 1 << 20, "{}", c.url);
        assert!(!c.body_capped, "{}", c.url);
    }
    assert_eq!(
        truncated["length"]
            .iter()
            .filter(|c| c.looks_like_html)
            .count(),
        1,
        "one HTML page, one robots.txt"
    );
    for c in truncated["time"].iter().chain(&truncated["disconnect"]) {
        assert_eq!(c.fetch_status, Some(200), "{}", c.url);
        assert_eq!(c.google_class, GoogleClass::Failed, "{}", c.url);
        assert_eq!(c.google_current_class, GoogleClass::Failed, "{}", c.url);
        assert_eq!(c.cc_class, CcClass::Success, "{}", c.url);
        assert!(!c.body_capped && c.payload_length < 1 << 20, "{}", c.url);
    }
}

#[test]
fn html_boms_and_encodings_are_the_generators() {
    let items = read_file(SAMPLE);
    let caps = captures(&items);
    // Generator: html_page 25, truncated_html 1 and page_for_other_path 2
    // (a redirect target that is no robots.txt) are the only 200s that are
    // HTML pages.
    let html200 = caps
        .iter()
        .filter(|c| c.fetch_status == Some(200) && c.looks_like_html)
        .count();
    assert_eq!(html200, 28);

    // Generator and warcio: 13 UTF-8 BOMs, 1 UTF-16LE, 1 UTF-16BE; encodings
    // as renamed by the crawler (gzip 86, br 30, chunked 18).
    let boms = count(&caps, |c| c.bom);
    assert_eq!(
        boms,
        [(Bom::Utf8, 13), (Bom::Utf16Le, 1), (Bom::Utf16Be, 1)]
            .into_iter()
            .collect()
    );
    let enc = count(&caps, |c| c.content_encoding.clone());
    assert_eq!(
        enc,
        [("br".to_owned(), 30), ("gzip".to_owned(), 86)]
            .into_iter()
            .collect()
    );
    let te = count(&caps, |c| c.transfer_encoding.clone());
    assert_eq!(te, [("chunked".to_owned(), 18)].into_iter().collect());
    assert!(
        caps.iter().all(|c| !c.payload_encoded),
        "CC stores payloads decoded"
    );
}

#[test]
fn sizes_cache_and_utf8_are_the_generators() {
    let items = read_file(SAMPLE);
    let caps = captures(&items);
    // Generator: size over_500kib 4 (huge 2, and the 2 bodies cut at 1 MiB).
    assert_eq!(caps.iter().filter(|c| c.over_500kib).count(), 4);
    // Generator: 180 Cache-Control values with a max-age in seconds (211
    // name max-age; "max-age=-1" 18 and "max-age=1d" 13 are no number).
    assert_eq!(
        caps.iter().filter(|c| c.cache_max_age.is_some()).count(),
        180
    );
    // warcio: 9 bodies do not decode as UTF-8: utf16 2 (LE and BE),
    // invalid_utf8 4 (cp1251 2, latin1, stray bytes) and junk still_gzipped 3.
    assert_eq!(caps.iter().filter(|c| !c.valid_utf8).count(), 9);
    let utf16 = caps.iter().find(|c| c.bom == Some(Bom::Utf16Le)).unwrap();
    assert!(!utf16.valid_utf8);
    let protocols = count(&caps, |c| c.url_protocol.clone());
    let https = protocols["https"];
    assert_eq!(
        caps.iter().filter(|c| c.warc_protocols.len() == 2).count(),
        https
    );
}
