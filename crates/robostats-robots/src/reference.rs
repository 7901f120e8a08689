//! Google's matching algorithm, ported line for line: the oracle that the
//! fast matcher ([`super::matches`]) is checked against by the property
//! tests and the fuzz target, and measured against by the benchmarks.

/// Google's `RobotsMatchStrategy::Matches`: keeps the set of path
/// positions that can match the pattern read so far. `O(|pattern| x
/// |path|)` time and one allocation per call; same answers as
/// [`super::matches`].
pub fn google_matches(path: &[u8], pattern: &[u8]) -> bool {
    let pathlen = path.len();
    let mut pos = vec![0usize; pathlen + 1];
    let mut numpos = 1;
    for (i, &pat) in pattern.iter().enumerate() {
        if pat == b'$' && i + 1 == pattern.len() {
            return pos[numpos - 1] == pathlen;
        }
        if pat == b'*' {
            numpos = pathlen - pos[0] + 1;
            for j in 1..numpos {
                pos[j] = pos[j - 1] + 1;
            }
        } else {
            // Includes `$` when it is not the last byte.
            let mut next = 0;
            for j in 0..numpos {
                if pos[j] < pathlen && path[pos[j]] == pat {
                    pos[next] = pos[j] + 1;
                    next += 1;
                }
            }
            numpos = next;
            if numpos == 0 {
                return false;
            }
        }
    }
    true
}
