//! The generated sample (samples/README.md) classified as its generator
//! intended. Status, redirect and truncation counts are the generator's own
//! `--stats`; BOM, encoding, size and Cache-Control counts come from warcio
//! (`tests/warc_expected.py`).

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
fn generated_sample_classified_as_generated() {
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
        (200, 459),
        (204, 2),
        (301, 35),
        (302, 18),
        (307, 1),
        (308, 7),
        (400, 2),
        (401, 4),
        (403, 12),
        (404, 128),
        (406, 3),
        (410, 3),
        (418, 1),
        (429, 4),
        (500, 5),
        (502, 2),
        (503, 5),
        (504, 4),
        (520, 2),
        (521, 2),
        (522, 1),
    ]
    .into_iter()
    .collect();
    assert_eq!(status, want);

    let google = count(&caps, |c| Some(c.google_class.as_str()));
    assert_eq!(
        google,
        [
            ("conditional_allow", 461),
            ("full_allow", 157),
            ("full_disallow", 21),
            ("redirect", 61)
        ]
        .into_iter()
        .collect()
    );
    let current = count(&caps, |c| Some(c.google_current_class));
    assert_eq!(current[&GoogleClass::FullDisallow], 25, "429 like 5xx");
    assert_eq!(current[&GoogleClass::FullAllow], 153);
    let cc = count(&caps, |c| Some(c.cc_class.as_str()));
    assert_eq!(
        cc,
        [
            ("defer_visits", 25),
            ("forbidden", 12),
            ("notfound", 133),
            ("other", 6),
            ("redirect", 61),
            ("success", 459),
            ("unauthorized", 4)
        ]
        .into_iter()
        .collect()
    );
    assert_eq!(CcClass::of(Some(999)), CcClass::Other);

    // Generator: redirect_https_upgrade 15, redirect_cross_host 11,
    // redirect_non_robots 17, redirect_www 18 (www added or removed, or a
    // subdomain sent to www.<domain>).
    let kinds = count(&caps, |c| c.redirect_kind);
    assert_eq!(kinds[&RedirectKind::HttpsUpgrade], 15);
    assert_eq!(kinds[&RedirectKind::OtherHost], 11);
    assert_eq!(kinds[&RedirectKind::NotRobotsPath], 17);
    let www = kinds[&RedirectKind::WwwAdded]
        + kinds[&RedirectKind::WwwRemoved]
        + kinds.get(&RedirectKind::SameSite).copied().unwrap_or(0);
    assert_eq!(www, 18);
    assert!(kinds[&RedirectKind::WwwAdded] > 0 && kinds[&RedirectKind::WwwRemoved] > 0);
    assert_eq!(
        kinds.values().sum::<usize>(),
        61,
        "every redirect has a kind"
    );
    assert!(
        caps.iter()
            .filter(|c| c.redirect_kind.is_some())
            .all(|c| c.fetch_redirect.is_some())
    );

    // Generator: truncated 1 (WARC-Truncated: length, body cut at 1 MiB).
    let truncated: Vec<_> = caps
        .iter()
        .filter(|c| c.content_truncated.is_some())
        .collect();
    assert_eq!(truncated.len(), 1);
    assert_eq!(truncated[0].content_truncated.as_deref(), Some("length"));
    assert_eq!(truncated[0].google_class, GoogleClass::ConditionalAllow);
    assert_eq!(truncated[0].payload_length, 1 << 20);
    assert!(!truncated[0].body_capped);

    // Generator: html200 29 + the truncated page (an HTML theme) are the
    // only 200s that are HTML pages.
    let html200 = caps
        .iter()
        .filter(|c| c.fetch_status == Some(200) && c.looks_like_html)
        .count();
    assert_eq!(html200, 30);

    // warcio: 12 UTF-8 BOMs, 1 UTF-16LE; encodings as renamed by the crawler.
    let boms = count(&caps, |c| c.bom);
    assert_eq!(
        boms,
        [(Bom::Utf8, 12), (Bom::Utf16Le, 1)].into_iter().collect()
    );
    let enc = count(&caps, |c| c.content_encoding.clone());
    assert_eq!(
        enc,
        [("br".to_owned(), 22), ("gzip".to_owned(), 96)]
            .into_iter()
            .collect()
    );
    let te = count(&caps, |c| c.transfer_encoding.clone());
    assert_eq!(te, [("chunked".to_owned(), 28)].into_iter().collect());
    assert!(
        caps.iter().all(|c| !c.payload_encoded),
        "CC stores payloads decoded"
    );
    assert_eq!(caps.iter().filter(|c| c.over_500kib).count(), 3);
    assert_eq!(
        caps.iter().filter(|c| c.cache_max_age.is_some()).count(),
        133
    );
    // warcio: 2 bodies do not decode as UTF-8 (the UTF-16 one and Latin-1).
    assert_eq!(caps.iter().filter(|c| !c.valid_utf8).count(), 2);
    let utf16 = caps.iter().find(|c| c.bom == Some(Bom::Utf16Le)).unwrap();
    assert!(!utf16.valid_utf8);
    let protocols = count(&caps, |c| c.url_protocol.clone());
    let https = protocols["https"];
    assert_eq!(
        caps.iter().filter(|c| c.warc_protocols.len() == 2).count(),
        https
    );
}
