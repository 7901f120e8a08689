//! Unknown keys that look like a misspelt directive.

/// The directives an unknown key is compared with.
const DIRECTIVES: [&str; 7] = [
    "user-agent",
    "allow",
    "disallow",
    "sitemap",
    "crawl-delay",
    "content-signal",
    "content-usage",
];

/// The directive `key` seems a misspelling of: at edit distance 1 or 2
/// (ASCII case ignored) from one of user-agent, allow, disallow, sitemap,
/// crawl-delay, content-signal, content-usage, the nearest one (the first on a tie). Keys shorter than 4
/// bytes, and keys Google already reads as a directive, never get here.
pub fn typo_of(key: &[u8]) -> Option<&'static str> {
    // Longer than any directive plus 2: no lookup (HTML lines often land
    // here, with long "keys").
    if key.len() < 4 || key.len() > 16 {
        return None;
    }
    let key = key.to_ascii_lowercase();
    DIRECTIVES
        .iter()
        .filter_map(|d| {
            let dist = edit_distance(&key, d.as_bytes(), 2)?;
            (dist > 0).then_some((dist, *d))
        })
        .min_by_key(|(dist, _)| *dist)
        .map(|(_, d)| d)
}

/// Levenshtein distance, if it is at most `max`.
fn edit_distance(a: &[u8], b: &[u8], max: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let d = prev[b.len()];
    (d <= max).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses() {
        assert_eq!(typo_of(b"Diallow"), Some("disallow"));
        assert_eq!(typo_of(b"user-agnet"), Some("user-agent"));
        assert_eq!(typo_of(b"Crawl-Delay"), None);
        assert_eq!(typo_of(b"crawl_delay"), Some("crawl-delay"));
        assert_eq!(typo_of(b"crawldelay"), Some("crawl-delay"));
        assert_eq!(typo_of(b"Sitmap"), Some("sitemap"));
        assert_eq!(typo_of(b"host"), None);
        assert_eq!(typo_of(b"noindex"), None);
        assert_eq!(typo_of(b"all"), None);
        assert_eq!(typo_of(b"Content-Signals"), Some("content-signal"));
        assert_eq!(typo_of(b"content_usage"), Some("content-usage"));
        assert_eq!(typo_of(b"Content-Signal"), None);
    }
}
