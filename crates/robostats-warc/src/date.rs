//! `WARC-Date` values -> seconds since the Unix epoch.

/// `YYYY-MM-DDThh:mm:ss[.fraction]Z` -> seconds since the Unix epoch.
pub fn parse_warc_date(s: &str) -> Option<i64> {
    let b = s.trim().as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let digits = &b[r];
        digits.iter().all(u8::is_ascii_digit).then(|| {
            digits
                .iter()
                .fold(0i64, |acc, &d| acc * 10 + i64::from(d - b'0'))
        })
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let rest = &b[19..];
    let rest = match rest.first() {
        Some(b'.') => {
            let digits = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            &rest[1 + digits..]
        }
        _ => rest,
    };
    if rest != b"Z"
        || !(1..=12).contains(&mo)
        || !(1..=31).contains(&d)
        || h > 23
        || mi > 59
        || sec > 60
    {
        return None;
    }
    // Days from civil (Howard Hinnant's algorithm).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + mi * 60 + sec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warc_dates() {
        assert_eq!(parse_warc_date("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_warc_date("2024-05-18T01:58:11Z"), Some(1_715_997_491));
        assert_eq!(
            parse_warc_date("2024-05-18T01:58:11.123456Z"),
            Some(1_715_997_491)
        );
        assert_eq!(parse_warc_date("2008-10-294T05:21:46-0700"), None);
    }
}
