//! Google's own test suite (google/robotstxt `robots_test.cc` and
//! `reporting_robots_test.cc`), run as data against robostats: every
//! verdict, every parse assertion, and the exact callback stream of
//! Google's parser. See `tests/data/conformance/README.md` for the origin.

use base64::Engine;
use robostats_robots::{
    Key, Line, LineMetadata, Lines, ReportedTag, RobotsTxt, escape_pattern,
    is_valid_user_agent_to_obey, path_params_query,
};
use serde_json::{Map, Value, json};

const VERDICTS: &str = include_str!("data/conformance/google_robots_test.jsonl");
const PARSE: &str = include_str!("data/conformance/google_parse_tests.jsonl");

fn records(jsonl: &str) -> Vec<Value> {
    jsonl
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("valid JSON line"))
        .collect()
}

/// A text field, or its `<name>_b64` twin for bytes that are not UTF-8.
fn bytes(record: &Value, name: &str) -> Vec<u8> {
    if let Some(s) = record[name].as_str() {
        return s.as_bytes().to_vec();
    }
    let b64 = record[format!("{name}_b64")]
        .as_str()
        .unwrap_or_else(|| panic!("no field {name} in {record}"));
    base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("valid base64")
}

fn where_(record: &Value) -> String {
    format!(
        "{} (upstream line {})",
        record["test"].as_str().unwrap(),
        record["src_line"]
    )
}

#[test]
fn google_robots_test_all_145_verdicts() {
    let records = records(VERDICTS);
    assert_eq!(records.len(), 145);
    let mut failures = Vec::new();
    for r in &records {
        let body = bytes(r, "robotstxt");
        let agent = r["user_agent"].as_str().unwrap();
        let url = r["url"].as_str().unwrap();
        let want = r["allowed"].as_bool().unwrap();
        // Parsed once per record here; tests/robots_props.rs checks that
        // one parse for many agents gives the same answers.
        let got = RobotsTxt::parse(&body).allowed(agent, url);
        if got != want {
            failures.push(format!("{}: {agent} {url}: want {want}", where_(r)));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn tag_name(line: &Line<'_>) -> &'static str {
    ReportedTag::of(line).google_name()
}

fn metadata_json(m: &LineMetadata) -> Map<String, Value> {
    m.flags()
        .into_iter()
        .map(|(name, v)| (name.to_owned(), v.into()))
        .collect()
}

fn put_bytes(obj: &mut Map<String, Value>, name: &str, b: &[u8]) {
    match std::str::from_utf8(b) {
        Ok(s) => obj.insert(name.into(), s.into()),
        Err(_) => obj.insert(
            format!("{name}_b64"),
            base64::engine::general_purpose::STANDARD.encode(b).into(),
        ),
    };
}

/// The callbacks Google's `ParseRobotsTxt` makes, rebuilt from our lines.
fn callbacks(body: &[u8]) -> Vec<Value> {
    let mut out = vec![json!({"cb": "start"})];
    for line in Lines::new(body) {
        if let Some(key) = line.key {
            let mut cb = Map::new();
            cb.insert("cb".into(), key.as_str().into());
            cb.insert("line".into(), line.number.into());
            if key == Key::Unknown {
                put_bytes(&mut cb, "key", line.key_text);
            }
            if key.value_is_escaped() {
                put_bytes(&mut cb, "value", &escape_pattern(line.value));
            } else {
                put_bytes(&mut cb, "value", line.value);
            }
            out.push(Value::Object(cb));
        }
        let mut meta = metadata_json(&line.metadata);
        meta.insert("cb".into(), "line_metadata".into());
        meta.insert("line".into(), line.number.into());
        out.push(Value::Object(meta));
    }
    out.push(json!({"cb": "end"}));
    out
}

/// What robots_test.cc's `RobotsStatsReporter` counts.
fn stats_reporter(body: &[u8]) -> Value {
    let (mut valid, mut unknown, mut last) = (0, 0, 0);
    let mut sitemap = Vec::new();
    for line in Lines::new(body) {
        match line.key {
            None => continue,
            Some(Key::Unknown) => unknown += 1,
            Some(key) => {
                valid += 1;
                if key == Key::Sitemap {
                    sitemap.extend_from_slice(line.value);
                }
            }
        }
        last = line.number;
    }
    json!({
        "valid_directives": valid,
        "unknown_directives": unknown,
        "last_line_seen": last,
        "sitemap": String::from_utf8_lossy(&sitemap),
    })
}

/// What reporting_robots.cc's `RobotsParsingReporter` reports.
fn parsing_reporter(body: &[u8]) -> Value {
    let robots = RobotsTxt::parse(body);
    let lines: Vec<Value> = robots
        .lines()
        .map(|l| {
            json!({
                "line_num": l.number,
                "tag_name": tag_name(&l),
                "is_typo": l.metadata.is_acceptable_typo,
                "metadata": metadata_json(&l.metadata),
            })
        })
        .collect();
    let s = robots.stats();
    json!({
        "valid_directives": s.user_agents + s.allows + s.disallows + s.sitemaps,
        "last_line_seen": s.lines,
        "parse_results_size": lines.len(),
        "lines": lines,
    })
}

/// Checks the fields `expected` names (upstream asserts only those); an
/// expected `lines` list holds the asserted lines only, each checked
/// against our line of the same number.
fn check_fields(got: &Value, expected: &Value) -> Result<(), String> {
    for (field, want) in expected.as_object().unwrap() {
        if field == "lines" {
            for line in want.as_array().unwrap() {
                let n = line["line_num"].as_u64().unwrap() as usize;
                let ours = &got["lines"][n - 1];
                if ours != line {
                    return Err(format!("line {n}: got {ours}, want {line}"));
                }
            }
        } else if &got[field] != want {
            return Err(format!("{field}: got {}, want {want}", got[field]));
        }
    }
    Ok(())
}

#[test]
fn google_parse_tests_all_85_assertions() {
    let records = records(PARSE);
    assert_eq!(records.len(), 50);
    let mut assertions = 0;
    let mut failures = Vec::new();
    for r in &records {
        let expected = &r["expected"];
        let result = match r["kind"].as_str().unwrap() {
            "is_valid_user_agent_to_obey" => {
                let got = is_valid_user_agent_to_obey(&bytes(r, "user_agent"));
                check_fields(&json!({"v": got}), &json!({"v": expected}))
            }
            "get_path_params_query" => {
                let url = bytes(r, "url");
                let got = String::from_utf8(path_params_query(&url).to_bytes().into_owned());
                check_fields(&json!({"v": got.unwrap()}), &json!({"v": expected}))
            }
            "maybe_escape_pattern" => {
                let got = String::from_utf8(escape_pattern(&bytes(r, "pattern")).into_owned());
                check_fields(&json!({"v": got.unwrap()}), &json!({"v": expected}))
            }
            "parse_stats" => check_fields(&stats_reporter(&bytes(r, "input")), expected),
            "parse_report" => check_fields(&parsing_reporter(&bytes(r, "input")), expected),
            kind => panic!("unknown kind {kind}"),
        };
        match result {
            Ok(()) => assertions += r["assertions"].as_u64().unwrap(),
            Err(e) => failures.push(format!("{} [{}]: {e}", where_(r), r["kind"])),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(assertions, 85);
}

#[test]
fn google_parser_callback_streams_are_identical() {
    let mut checked = 0;
    for r in records(PARSE) {
        let Some(want) = r.get("google_callbacks") else {
            continue;
        };
        let got = callbacks(&bytes(&r, "input"));
        let want = want.as_array().unwrap();
        assert_eq!(got.len(), want.len(), "{}: callback count", where_(&r));
        for (g, w) in got.iter().zip(want) {
            assert_eq!(g, w, "{}", where_(&r));
        }
        checked += 1;
    }
    assert_eq!(checked, 16);
}
