//! The manifest's format and reading.

use super::*;

fn run(size_limit: Option<usize>) -> Line {
    Line::Run(RunLine {
        tool: "robostats".into(),
        version: "0".into(),
        agents_version: "sha256:x".into(),
        shard: None,
        options: RunOptions {
            size_limit,
            agents_version: "sha256:x".into(),
            agents: vec![],
            body_store: None,
        },
        started_unix: 0,
    })
}

fn input(name: &str, status: InputStatus) -> Line {
    Line::Input(InputLine {
        input: name.into(),
        id: None,
        status,
        counts: Counts::default(),
        parts: vec![],
        reason: None,
        ended_ms: None,
    })
}

#[test]
fn torn_lines_are_ignored_and_done_is_final() {
    let out = std::env::temp_dir().join(format!("robostats-manifest-{}", std::process::id()));
    let _ = fs::remove_dir_all(&out);
    let mut m = Manifest::open(&out, "run").unwrap();
    m.append(&run(Some(1))).unwrap();
    m.append(&input("f1", InputStatus::Failed)).unwrap();
    m.append(&input("f1", InputStatus::Done)).unwrap();
    m.append(&input("f2", InputStatus::Done)).unwrap();
    let mut f = fs::OpenOptions::new().append(true).open(m.path()).unwrap();
    f.write_all(b"{\"type\": \"input\", \"input\": \"f3\", \"sta")
        .unwrap();
    // Another manifest (another shard) that failed f2 before it was done.
    let mut other = Manifest::open(&out, "shard-00001-of-00002").unwrap();
    other.append(&run(Some(1))).unwrap();
    other.append(&input("f2", InputStatus::Failed)).unwrap();
    // The next run's first line is whole, not glued to the torn one.
    let mut next = Manifest::open(&out, "run").unwrap();
    next.append(&run(Some(1))).unwrap();
    next.append(&input("f4", InputStatus::Done)).unwrap();
    let entries = read_inputs(&out).unwrap();
    assert_eq!(entries.len(), 3);
    assert_eq!(entries["f4"].options.as_ref().unwrap().size_limit, Some(1));
    assert_eq!(entries["f1"].line.status, InputStatus::Done);
    assert_eq!(entries["f2"].line.status, InputStatus::Done);
    assert_eq!(entries["f1"].options.as_ref().unwrap().size_limit, Some(1));
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn the_latest_line_of_an_input_says_what_it_is() {
    let out = std::env::temp_dir().join(format!("robostats-latest-{}", std::process::id()));
    let _ = fs::remove_dir_all(&out);
    let at = |name: &str, status, ms| {
        let Line::Input(mut line) = input(name, status) else {
            unreachable!()
        };
        line.ended_ms = ms;
        Line::Input(line)
    };
    // Done in a shard's manifest, then done again (--redo) in run.jsonl,
    // which sorts first: the later line is the input's.
    let mut shard = Manifest::open(&out, "shard-00000-of-00001").unwrap();
    shard.append(&run(Some(1))).unwrap();
    shard
        .append(&at("f1", InputStatus::Done, Some(10)))
        .unwrap();
    shard
        .append(&at("f2", InputStatus::Done, Some(10)))
        .unwrap();
    shard.append(&at("f3", InputStatus::Failed, None)).unwrap();
    let mut again = Manifest::open(&out, "run").unwrap();
    again.append(&run(Some(1))).unwrap();
    again
        .append(&at("f1", InputStatus::Done, Some(20)))
        .unwrap();
    // A redo that failed: the input is to be done.
    again
        .append(&at("f2", InputStatus::Failed, Some(30)))
        .unwrap();
    // A line with a time is newer than one without.
    again.append(&at("f3", InputStatus::Done, Some(5))).unwrap();
    let entries = read_inputs(&out).unwrap();
    assert_eq!(entries["f1"].line.ended_ms, Some(20));
    assert_eq!(entries["f2"].line.status, InputStatus::Failed);
    assert_eq!(entries["f3"].line.status, InputStatus::Done);
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn lines_keep_the_manifest_format() {
    let line = serde_json::to_value(input("a.warc.gz", InputStatus::Done)).unwrap();
    assert_eq!(
        line,
        serde_json::json!({
            "type": "input", "input": "a.warc.gz", "status": "done", "parts": [],
            "records": 0, "responses": 0, "captures": 0, "lost": 0, "errors": 0, "bytes": 0,
        })
    );
    let tokens = |t: &[&str]| t.iter().map(|t| t.to_string()).collect::<Vec<_>>();
    let then = RunOptions {
        size_limit: Some(512_000),
        agents_version: "a".into(),
        agents: tokens(&["GPTBot", "CCBot"]),
        body_store: None,
    };
    let now = RunOptions {
        size_limit: None,
        agents_version: "b".into(),
        agents: tokens(&["gptbot", "CCBot", "FooBot", "BarBot"]),
        body_store: None,
    };
    assert_eq!(
        then.differences(&now),
        [
            "--no-size-limit is given now but was not before (bodies were parsed up to \
             512000 bytes)",
            "the crawlers of interest differ: this run adds 2 crawlers (FooBot, BarBot) \
             (--agents, --add-agents)",
        ]
    );
    assert_eq!(
        now.differences(&then)[1],
        "the crawlers of interest differ: this run leaves out 2 crawlers (FooBot, \
         BarBot) (--agents, --add-agents)"
    );
    assert!(then.differences(&then).is_empty());
}

#[test]
fn manifests_of_earlier_versions_are_read() {
    // Lines as robostats wrote them before its manifest was typed (and
    // an input line from before the `lost` count).
    let out = std::env::temp_dir().join(format!("robostats-old-manifest-{}", std::process::id()));
    let _ = fs::remove_dir_all(&out);
    fs::create_dir_all(dir(&out)).unwrap();
    fs::write(
        dir(&out).join("run.jsonl"),
        concat!(
            r#"{"agents_version":"sha256:e4","options":{"agents_version":"sha256:e4","size_limit":512000},"shard":null,"started_unix":1795555000,"tool":"robostats","type":"run","version":"0.1.0"}"#, "\n",
            r#"{"bytes":18857,"captures":1,"errors":0,"input":"a.warc.gz","lost":0,"parts":[{"path":"captures/a-808503c5-00.parquet","rows":1,"table":"captures"}],"records":4,"responses":1,"status":"done","type":"input"}"#, "\n",
            r#"{"bytes":5,"captures":0,"errors":1,"input":"b.warc.gz","parts":[],"records":0,"responses":0,"status":"failed","type":"input"}"#, "\n",
            r#"{"bytes":18862,"captures":1,"errors":1,"files_done":1,"files_failed":1,"files_retried":0,"files_skipped":0,"lost":0,"records":4,"responses":1,"seconds":0.1,"type":"end"}"#, "\n",
        ),
    )
    .unwrap();
    fs::write(
        dir(&out).join("compact.jsonl"),
        concat!(
            r#"{"merged":[{"from":["rules/a-00.parquet","rules/b-00.parquet"],"path":"rules/compacted-1-00000.parquet","rows":9}],"seconds":0.5,"table":"rules","type":"compact","unix":1795555100}"#, "\n",
        ),
    )
    .unwrap();
    for file in ["run.jsonl", "compact.jsonl"] {
        for line in fs::read_to_string(dir(&out).join(file)).unwrap().lines() {
            serde_json::from_str::<Line>(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        }
    }
    let entries = read_inputs(&out).unwrap();
    assert_eq!(entries["a.warc.gz"].line.status, InputStatus::Done);
    assert_eq!(entries["a.warc.gz"].line.parts[0].rows, 1);
    assert_eq!(
        entries["a.warc.gz"].options.as_ref().unwrap().size_limit,
        Some(512_000)
    );
    assert_eq!(entries["b.warc.gz"].line.counts.lost, 0);
    assert_eq!(entries["b.warc.gz"].line.status, InputStatus::Failed);
    fs::remove_dir_all(&out).unwrap();
}

#[test]
fn body_records_keep_their_format() {
    let bodies = Line::Bodies(BodiesLine {
        input: "a.warc.gz".into(),
        id: Some("/data/a.warc.gz".into()),
        parts: vec![PartEntry {
            table: "bodies".into(),
            path: "bodies/a-1-00-00000000000000ff.parquet".into(),
            rows: 3,
        }],
        repairs: vec!["0a1b2c3d".into()],
        bodies_only: true,
        ended_ms: 5,
    });
    let text = serde_json::to_string(&bodies).unwrap();
    assert_eq!(
        text,
        r#"{"type":"bodies","input":"a.warc.gz","id":"/data/a.warc.gz","parts":[{"table":"bodies","path":"bodies/a-1-00-00000000000000ff.parquet","rows":3}],"repairs":["0a1b2c3d"],"bodies_only":true,"ended_ms":5}"#
    );
    assert_eq!(serde_json::from_str::<Line>(&text).unwrap(), bodies);
    let repair = Line::Repair(RepairLine {
        id: "0a1b2c3d".into(),
        retired: vec!["bodies/a-1-00-00000000000000ff.parquet".into()],
        missing: vec!["body_rules/a-1-00-00000000000000ff.parquet".into()],
        inputs: vec![Owing {
            input: OwedInput {
                input: "a.warc.gz".into(),
                id: None,
            },
            bodies: 3,
        }],
        bodies: 3,
        unix_ms: 7,
    });
    let text = serde_json::to_string(&repair).unwrap();
    assert_eq!(
        text,
        r#"{"type":"repair","id":"0a1b2c3d","retired":["bodies/a-1-00-00000000000000ff.parquet"],"missing":["body_rules/a-1-00-00000000000000ff.parquet"],"inputs":[{"input":"a.warc.gz","bodies":3}],"bodies":3,"unix_ms":7}"#
    );
    assert_eq!(serde_json::from_str::<Line>(&text).unwrap(), repair);
}

#[test]
fn a_merge_counts_once_its_file_is_there() {
    let mut merges = Merges::default();
    let p = |s: &str| PathBuf::from(s);
    // a -> X -> Y (two compactions); b -> Z recorded by a compaction
    // killed before its swap (Z never appeared); c -> W then, once the
    // killed compaction was done again, c -> V.
    merges.add(p("t/a"), p("t/X"));
    merges.add(p("t/X"), p("t/Y"));
    merges.add(p("t/b"), p("t/Z"));
    merges.add(p("t/c"), p("t/W"));
    merges.add(p("t/c"), p("t/V"));
    let there = ["t/Y", "t/b", "t/V"];
    let exists = |q: &Path| there.iter().any(|t| q == Path::new(t));
    assert_eq!(merges.locate(&p("t/a"), &exists), Some(p("t/Y")));
    assert_eq!(merges.locate(&p("t/b"), &exists), Some(p("t/b")));
    assert_eq!(merges.locate(&p("t/c"), &exists), Some(p("t/V")));
    assert_eq!(merges.locate(&p("t/d"), &exists), None);
    // Y deleted by hand: a is gone.
    assert_eq!(merges.locate(&p("t/a"), &|q| q == Path::new("t/V")), None);
}
