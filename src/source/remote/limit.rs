//! The run's request budget: a cap on requests per second shared by every
//! download, which slows the whole run down when a server says it is
//! overloaded.
//!
//! The cap is a token bucket holding one token: requests are spaced by at
//! least `1 / rate` seconds, with no burst. A throttling answer (503, 429,
//! or a CDN's 403) halves the rate and pauses every download for the wait
//! the answer asked for (or the retry's own wait); each success then wins
//! back a twentieth of the cap, so the run returns to its cap after a
//! run of successes rather than at once. This is the "adaptive" mode of
//! the AWS SDKs in small: many downloads do not hammer a limit together.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The lowest rate a slow-down goes to: one request every 20 seconds.
const FLOOR: f64 = 0.05;

/// Requests per second shared by all downloads.
#[derive(Debug)]
pub struct Limiter {
    /// The configured cap (`None`: no cap).
    cap: Option<f64>,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// The rate now (`None`: no cap and no slow-down in force).
    rate: Option<f64>,
    /// When the next request may start.
    next: Instant,
    /// No request starts before this (a server asked for a pause).
    paused_until: Instant,
}

impl Limiter {
    /// A limiter allowing `per_second` requests a second (`0`, or not
    /// finite: no cap; at least one request every 1,000 seconds).
    pub fn new(per_second: f64) -> Limiter {
        let cap = (per_second.is_finite() && per_second > 0.0).then_some(per_second.max(0.001));
        let now = Instant::now();
        Limiter {
            cap,
            state: Mutex::new(State {
                rate: cap,
                next: now,
                paused_until: now,
            }),
        }
    }

    /// Takes the next request's slot: how long to wait before sending it.
    pub fn reserve(&self) -> Duration {
        let now = Instant::now();
        self.slot(now) - now
    }

    /// Takes the next slot at `now` or later: when it starts.
    fn slot(&self, now: Instant) -> Instant {
        let mut s = self.state.lock().expect("limiter lock");
        let start = now.max(s.next).max(s.paused_until);
        if let Some(rate) = s.rate {
            s.next = start + Duration::from_secs_f64(1.0 / rate);
        }
        start
    }

    /// A request succeeded: the rate climbs back towards the cap.
    pub fn succeeded(&self) {
        let mut s = self.state.lock().expect("limiter lock");
        s.rate = match (s.rate, self.cap) {
            (Some(rate), Some(cap)) => Some((rate + cap / 20.0).min(cap)),
            // Without a cap, a slow-down wears off by 5 % a success and
            // ends above 1,000 requests a second.
            (Some(rate), None) => Some(rate * 1.05).filter(|r| *r < 1000.0),
            (None, _) => None,
        };
    }

    /// A server said to slow down: the rate halves, and no request starts
    /// for `pause`.
    pub fn throttled(&self, pause: Duration, downloads: usize) {
        let mut s = self.state.lock().expect("limiter lock");
        // Without a cap, the first slow-down starts from one request a
        // second per download.
        let rate = s.rate.unwrap_or(downloads.max(1) as f64);
        s.rate = Some((rate / 2.0).max(FLOOR));
        s.paused_until = s.paused_until.max(Instant::now() + pause);
    }

    /// The rate in force now, if any.
    pub fn rate(&self) -> Option<f64> {
        self.state.lock().expect("limiter lock").rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_spaced_by_the_inverse_of_the_rate() {
        let limiter = Limiter::new(4.0);
        let now = Instant::now();
        for i in 0..5 {
            assert_eq!(limiter.slot(now), now + Duration::from_millis(250 * i));
        }
        // A pause in the requests is not made up for by a burst.
        let later = now + Duration::from_secs(10);
        assert_eq!(limiter.slot(later), later);
        assert_eq!(limiter.slot(later), later + Duration::from_millis(250));
    }

    #[test]
    fn no_cap_means_no_wait_until_a_slow_down() {
        let limiter = Limiter::new(0.0);
        let now = Instant::now();
        assert!((0..100).all(|_| limiter.slot(now) == now));
        limiter.throttled(Duration::from_secs(60), 2);
        assert_eq!(limiter.rate(), Some(1.0));
        assert!(limiter.reserve() > Duration::from_secs(50));
    }

    #[test]
    fn a_slow_down_halves_the_rate_and_successes_win_it_back() {
        let limiter = Limiter::new(2.0);
        limiter.throttled(Duration::ZERO, 2);
        assert_eq!(limiter.rate(), Some(1.0));
        limiter.throttled(Duration::ZERO, 2);
        assert_eq!(limiter.rate(), Some(0.5));
        for _ in 0..15 {
            limiter.succeeded();
        }
        assert_eq!(limiter.rate(), Some(2.0));
        for _ in 0..20 {
            limiter.throttled(Duration::ZERO, 2);
        }
        assert_eq!(limiter.rate(), Some(FLOOR));
    }
}
