//! Numbers as the charts write them, and the ticks of a scale.

/// A share as a percentage, with precision where it matters.
pub fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p == 0.0 {
        "0 %".to_owned()
    } else if p.abs() < 0.1 {
        format!("{p:.2} %")
    } else if p.abs() < 10.0 {
        format!("{p:.1} %")
    } else {
        format!("{p:.0} %")
    }
}

/// A share as a percentage, or a count.
pub(super) fn number(value: f64, shares: bool) -> String {
    if shares { percent(value) } else { count(value) }
}

/// A count with thousands separators.
pub fn count(n: f64) -> String {
    let n = n.round() as i64;
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// A scale's ticks: about five round steps from 0, the last at or above
/// `max`.
pub(super) fn ticks(max: f64) -> Vec<f64> {
    if max <= 0.0 {
        return vec![0.0];
    }
    let raw = max / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(raw);
    // From 0 to the first tick at or above `max`.
    let mut out = vec![0.0];
    while out[out.len() - 1] < max * 0.9999 {
        out.push(out.len() as f64 * step);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(count(1234567.0), "1,234,567");
        assert_eq!(count(12.0), "12");
        assert_eq!(percent(0.0642), "6.4 %");
        assert_eq!(percent(0.5), "50 %");
        assert_eq!(percent(0.0004), "0.04 %");
        assert_eq!(
            ticks(1.0),
            vec![0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
        );
    }
}
