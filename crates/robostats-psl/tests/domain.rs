//! The list's rules through [`robostats_psl::domain`]. (An integration
//! test, not a unit test: a unit test would compile the list's lookup a
//! second time, for the test build, 11 s of CPU.)

fn d(host: &str) -> Option<&str> {
    robostats_psl::domain(host.as_bytes()).map(|d| std::str::from_utf8(d).unwrap())
}

#[test]
fn the_lists_rules_apply() {
    assert_eq!(d("www.example.com"), Some("example.com"));
    assert_eq!(d("a.b.example.co.uk"), Some("example.co.uk"));
    // A public suffix alone has no registrable domain.
    assert_eq!(d("co.uk"), None);
    assert_eq!(d("com"), None);
    // A wildcard rule (*.ck) and its exception (!www.ck).
    assert_eq!(d("a.b.ck"), Some("a.b.ck"));
    assert_eq!(d("www.ck"), Some("www.ck"));
    // A suffix the list does not know is one label (its default rule).
    assert_eq!(d("host.example"), Some("host.example"));
}
