//! Every real WARC file in tests/data/warc (origins in its README) read with
//! the expected number of responses and field values. The expected values
//! come from warcio 1.8.1 and FastWARC 2.0.1 (`tests/warc_expected.py`).

use robostats::http::{CcClass, GoogleClass, RedirectKind};
use robostats::table::UnixTime;
use robostats::warc::parse_warc_date;
use robostats::warc::{ErrorKind, Stage};

use crate::warc_util::{Item, captures, errors, read_file};

/// (file, responses by warcio/FastWARC, errors we report)
type FileCase = (&'static str, usize, &'static [(Stage, ErrorKind)]);

const FILES: &[FileCase] = &[
    (
        "commoncrawl/cc-2016-10-clipped-truncated.warc.gz",
        1,
        &[(Stage::Gzip, ErrorKind::TruncatedMember)],
    ),
    (
        "commoncrawl/cc-2019-12-jwarc-single-response.warc.gz",
        1,
        &[],
    ),
    (
        "commoncrawl/cc-main-2020-34-resiliparse-warcfile.warc.gz",
        16,
        &[],
    ),
    ("commoncrawl/cc-main-2024-22-whirlwind.warc.gz", 1, &[]),
    ("other/clueweb09-nutch-warc018-quirk.warc.gz", 29, &[]),
    ("other/jwarc-wget-gzip-extra-sl.warc.gz", 0, &[]),
    (
        "other/resiliparse-block-sized-records-warc11.warc.gz",
        0,
        &[],
    ),
    // warcio refuses the file (one member, several records); FastWARC: 1.
    ("other/warcio-example-bad-non-chunked.warc.gz", 1, &[]),
    ("other/warcio-example-digest.warc", 0, &[]),
    ("other/warcio-example-iana.org-chunked.warc", 1, &[]),
    ("other/warcio-example-resource.warc.gz", 0, &[]),
    ("other/warcio-example-space-in-target-uri.warc.gz", 0, &[]),
    // warcio warns "Record not followed by newline" at 2560 and goes on.
    (
        "other/warcio-example-trunc.warc",
        1,
        &[(Stage::Warc, ErrorKind::ContentLengthMismatch)],
    ),
    ("other/warcio-example-wget-bad-target-uri.warc.gz", 1, &[]),
    // One record split over three gzip members; warcio stops after it.
    ("other/warcio-example-wrong-chunks.warc.gz", 1, &[]),
    ("other/warcio-example.warc.gz", 1, &[]),
    ("other/warcio-post-test.warc.gz", 3, &[]),
    ("other/webarchive-commons-IAH-urls-wget.warc.gz", 16, &[]),
    ("other/webarchive-commons-multiple-headers.warc", 1, &[]),
];

#[test]
fn every_real_file_response_count_and_errors() {
    for &(file, responses, errs) in FILES {
        let items = read_file(&format!("tests/data/warc/{file}"));
        let caps = captures(&items);
        assert_eq!(caps.len(), responses, "{file}: responses");
        assert_eq!(errors(&items), errs, "{file}: errors");
    }
}

/// (offset, status, url, WARC-Date, WARC-Record-ID) of every response, as
/// warcio reports them.
type Expected = (u64, u16, &'static str, &'static str, &'static str);

/// The captures of `file` against warcio's offsets, statuses, URLs, dates
/// (compared as the instants they name) and record IDs.
fn check(file: &str, expected: &[Expected]) {
    let items = read_file(&format!("tests/data/warc/{file}"));
    type Got = (u64, u16, String, Option<UnixTime>, String);
    let got: Vec<Got> = captures(&items)
        .iter()
        .map(|c| {
            (
                c.at.warc_record_offset,
                c.fetch_status.unwrap_or(0),
                c.url.clone(),
                c.fetch_time,
                c.warc_record_id.clone().unwrap_or_default(),
            )
        })
        .collect();
    let expected: Vec<Got> = expected
        .iter()
        .map(|&(o, s, u, d, i)| {
            let date = parse_warc_date(d).map(UnixTime);
            (o, s, u.to_owned(), date, i.to_owned())
        })
        .collect();
    assert_eq!(got, expected, "{file}");
}

/// warcio's reading of Common Crawl's 2020-34 file written by Resiliparse.
const CC_2020_34: &[Expected] = &[
    (
        940,
        200,
        "http://003338.cn/l41/481397.html",
        "2020-08-08T17:27:41Z",
        "<urn:uuid:c4c112a5-3503-4483-abf8-51a0dd86dd53>",
    ),
    (
        12685,
        200,
        "http://01spb.ru/company/",
        "2020-08-08T18:31:12Z",
        "<urn:uuid:e9e41f63-d478-42d0-bca8-1af2be3245a3>",
    ),
    (
        32353,
        200,
        "http://035.psb556.com/24/i/u_1090813/article.html",
        "2020-08-08T18:39:41Z",
        "<urn:uuid:8ed3a686-65da-4101-830e-298f87a11487>",
    ),
    (
        38503,
        200,
        "http://037426.cn/",
        "2020-08-08T18:34:24Z",
        "<urn:uuid:29666a04-2c62-44ca-b0e5-83178f324260>",
    ),
    (
        42891,
        200,
        "http://041696.com/15477/list_6_4.html",
        "2020-08-08T17:31:34Z",
        "<urn:uuid:342e0cfd-c2b7-45c7-a66e-a38fac0c6611>",
    ),
    (
        48321,
        200,
        "http://044545.com/topic/20200207/015849.html",
        "2020-08-08T18:03:24Z",
        "<urn:uuid:bed28f39-c643-401a-b49c-7e936df0cac6>",
    ),
    (
        61090,
        200,
        "http://0513mt.com/index.php/art/detail/id/8884.html",
        "2020-08-08T18:07:31Z",
        "<urn:uuid:dda783c9-b4da-466c-b336-d7f0c0dc4ad8>",
    ),
    (
        70222,
        200,
        "http://05925.net/index.php/vod/type/id/53.html",
        "2020-08-08T17:41:52Z",
        "<urn:uuid:d83e05b0-35af-4d6a-83c9-712ce5448f9a>",
    ),
    (
        75624,
        200,
        "http://06.live-radsport.ch/fahrerstatistik_801/Anthony_Ravard.html",
        "2020-08-08T17:11:45Z",
        "<urn:uuid:7323c152-4ff3-4722-abab-0c34486605bc>",
    ),
    (
        87298,
        200,
        "http://06.live-radsport.ch/tippspiel/stats_140_petzi.html",
        "2020-08-08T17:55:23Z",
        "<urn:uuid:4a39d927-39b4-4e51-b0cb-6747fa3b26a9>",
    ),
    (
        99077,
        200,
        "http://0615235.com/02mjqjo%7Bibotij2.btq?odmbtt=106&tdmbtt=121",
        "2020-08-08T18:16:00Z",
        "<urn:uuid:142fdccd-c2db-48a9-8481-694f3dfe9664>",
    ),
    (
        106585,
        200,
        "http://0755krk.com/76104/list_4_1.html",
        "2020-08-08T17:40:13Z",
        "<urn:uuid:227065ee-6bae-4612-a57b-e538345a71f2>",
    ),
    (
        110823,
        200,
        "http://0760.jxtdw.com/area/sanxiang/",
        "2020-08-08T17:22:01Z",
        "<urn:uuid:dd19c4f1-355e-4551-a27f-a7038a8c77a6>",
    ),
    (
        120465,
        200,
        "http://077678u.info/erxiaoshujinguang/list_6_2.html",
        "2020-08-08T18:26:03Z",
        "<urn:uuid:8b2d385d-71ab-4711-b957-0f4a7d1737e1>",
    ),
    (
        125552,
        200,
        "http://0900-hovenier.nl/gelderland/oosterbeek/",
        "2020-08-08T18:02:09Z",
        "<urn:uuid:2be52b4e-8dbf-4d7e-8050-990fcfdeab0b>",
    ),
    (
        132240,
        200,
        "http://096355.com/video/11073.html?11073-0-2",
        "2020-08-08T17:21:07Z",
        "<urn:uuid:5caf7c30-270f-4422-b8a8-39520a630f93>",
    ),
];

#[test]
fn cc_2020_34_resiliparse_offsets_match_warcio() {
    check(
        "commoncrawl/cc-main-2020-34-resiliparse-warcfile.warc.gz",
        CC_2020_34,
    );
}

#[test]
fn wget_1_14_redirects_match_warcio() {
    let items = read_file("tests/data/warc/other/webarchive-commons-IAH-urls-wget.warc.gz");
    let caps = captures(&items);
    let offsets: Vec<u64> = caps.iter().map(|c| c.at.warc_record_offset).collect();
    assert_eq!(
        offsets,
        [
            817, 1841, 3070, 4091, 5046, 12382, 13437, 14426, 21666, 22732, 25447, 26535, 28417,
            29481, 31563, 32640
        ]
    );
    let statuses: Vec<u16> = caps.iter().filter_map(|c| c.fetch_status).collect();
    assert_eq!(
        statuses,
        [
            302, 200, 302, 301, 200, 302, 301, 200, 302, 200, 302, 200, 302, 200, 302, 200
        ]
    );
    // The first: http://www.archive.org/robots.txt -> http://archive.org/robots.txt
    let first = caps[0];
    assert_eq!(
        first.fetch_redirect.as_deref(),
        Some("http://archive.org/robots.txt")
    );
    assert_eq!(first.redirect_kind, Some(RedirectKind::WwwRemoved));
    assert_eq!(first.google_class, GoogleClass::Redirect);
    assert_eq!(first.cc_class, CcClass::Redirect);
    // warcio's get_record_length(); a request record sits in between.
    assert_eq!(first.warc_record_length, Some(625));
    assert_eq!(caps[1].google_class, GoogleClass::ConditionalAllow);
    assert_eq!(
        caps[1].url_host_registered_domain.as_deref(),
        Some("archive.org")
    );
}

#[test]
fn cc_2024_22_whirlwind_fields() {
    let items = read_file("tests/data/warc/commoncrawl/cc-main-2024-22-whirlwind.warc.gz");
    let caps = captures(&items);
    let c = caps[0];
    assert_eq!(c.crawl.as_deref(), Some("CC-MAIN-2024-22"));
    // warcio: get_record_offset() 1023, get_record_length() 17351.
    assert_eq!(
        (c.at.warc_record_offset, c.warc_record_length),
        (1023, Some(17351))
    );
    assert_eq!(c.url, "https://an.wikipedia.org/wiki/Escopete");
    assert_eq!(
        c.fetch_time,
        parse_warc_date("2024-05-18T01:58:10Z").map(UnixTime)
    );
    assert_eq!(c.fetch_time, Some(UnixTime(1_715_997_490)));
    assert_eq!(
        c.warc_record_id.as_deref(),
        Some("<urn:uuid:2aabeff2-67f5-4608-8466-e87c6296e2b6>")
    );
    assert!(c.warc_protocols.is_empty());
    // HTTP/2 origin: lower-case renamed header, payload stored decoded.
    assert_eq!(c.content_encoding.as_deref(), Some("gzip"));
    assert!(!c.payload_encoded);
    assert_eq!(
        c.url_host_registered_domain.as_deref(),
        Some("wikipedia.org")
    );
    assert_eq!(c.url_port, Some(443));
}

#[test]
fn cc_2016_clipped_member_yields_its_record_as_failed() {
    let items = read_file("tests/data/warc/commoncrawl/cc-2016-10-clipped-truncated.warc.gz");
    let c = captures(&items)[0];
    assert_eq!(c.fetch_status, Some(200));
    assert!(c.record_incomplete);
    assert_eq!(c.google_class, GoogleClass::Failed);
    assert_eq!(c.warc_record_length, None);
    assert!(matches!(
        items.last(),
        Some(Item::Error(
            Stage::Gzip,
            ErrorKind::TruncatedMember,
            Some(0)
        ))
    ));
}

#[test]
fn other_producers_quirks() {
    // wget 1.19.4 writes the target URI in angle brackets.
    let items = read_file("tests/data/warc/other/warcio-example-wget-bad-target-uri.warc.gz");
    assert_eq!(captures(&items)[0].url, "http://example.com/");
    // warcprox keeps the chunked body: reported, not decoded.
    let items = read_file("tests/data/warc/other/warcio-example-iana.org-chunked.warc");
    let c = captures(&items)[0];
    assert_eq!(c.transfer_encoding.as_deref(), Some("chunked"));
    assert!(c.payload_encoded);
    assert_eq!(
        (c.at.warc_record_offset, c.warc_record_length),
        (405, Some(7974))
    );
    // Several records in one member: the member's offset, the record's
    // position inside it, no length.
    let items = read_file("tests/data/warc/other/warcio-example-bad-non-chunked.warc.gz");
    let c = captures(&items)[0];
    assert_eq!(
        (
            c.at.warc_record_offset,
            c.warc_record_offset_in_member,
            c.warc_record_length
        ),
        (0, 1197, None)
    );
    // A record split over three members, followed by a request in the third.
    let items = read_file("tests/data/warc/other/warcio-example-wrong-chunks.warc.gz");
    let c = captures(&items)[0];
    assert_eq!(
        (c.at.warc_record_offset, c.warc_record_length),
        (0, Some(1130))
    );
    assert_eq!(c.fetch_status, Some(200));
    assert!(matches!(items[1], Item::Other { offset: 1130, .. }));
    // ClueWeb09: WARC/0.18, a date that is not a date.
    let items = read_file("tests/data/warc/other/clueweb09-nutch-warc018-quirk.warc.gz");
    let c = captures(&items)[0];
    assert_eq!(c.at.warc_record_offset, 317);
    assert_eq!(c.crawl.as_deref(), Some("clueweb09-ja"));
    assert_eq!(c.fetch_time, None);
    assert_eq!(c.content_encoding.as_deref(), Some("gzip"));
    assert!(c.payload_encoded);
    // Repeated HTTP headers are all kept.
    let items = read_file("tests/data/warc/other/webarchive-commons-multiple-headers.warc");
    assert_eq!(captures(&items)[0].fetch_status, Some(200));
}
