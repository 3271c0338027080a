//! Timestamps as GitHub writes them (`2026-11-30T10:00:00Z`), and seconds since the Unix epoch.
//!
//! The core has no clock: callers pass the current time in. These two conversions are all the
//! calendar it needs (UTC only, the proleptic Gregorian calendar).

/// Seconds since the epoch of an RFC 3339 timestamp in UTC (`Z`) or with a `+HH:MM` offset;
/// fractions of a second are dropped. `None` for anything else.
///
/// ```
/// use review_core::time::{format_utc, parse_rfc3339};
///
/// assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0));
/// assert_eq!(parse_rfc3339("2026-11-30T10:00:00.123Z"), Some(1_796_032_800));
/// assert_eq!(parse_rfc3339("2026-11-30T11:00:00+01:00"), Some(1_796_032_800));
/// assert_eq!(format_utc(1_796_032_800), "2026-11-30T10:00:00Z");
/// assert_eq!(parse_rfc3339("yesterday"), None);
/// ```
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    let text = text.trim();
    let (date, rest) = text.split_once(['T', 't', ' '])?;
    let mut d = date.splitn(3, '-');
    let year: i64 = d.next()?.parse().ok()?;
    let month: u32 = d.next()?.parse().ok()?;
    let day: u32 = d.next()?.parse().ok()?;
    let (clock, offset) = if let Some(c) = rest.strip_suffix(['Z', 'z']) {
        (c, 0)
    } else {
        let at = rest.rfind(['+', '-'])?;
        let (c, off) = rest.split_at(at);
        let sign = if off.starts_with('-') { -1 } else { 1 };
        let (h, m) = off.get(1..)?.split_once(':')?;
        let (h, m) = (h.parse::<i64>().ok()?, m.parse::<i64>().ok()?);
        if !(0..24).contains(&h) || !(0..60).contains(&m) {
            return None;
        }
        (c, sign * (h * 60 + m) * 60)
    };
    let clock = clock.split('.').next()?;
    let mut t = clock.splitn(3, ':');
    let hour: i64 = t.next()?.parse().ok()?;
    let minute: i64 = t.next()?.parse().ok()?;
    let second: i64 = t.next()?.parse().ok()?;
    // Years beyond four digits are not timestamps anyone writes, and would overflow below.
    let valid = (-9999..=9999).contains(&year)
        && (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && (0..24).contains(&hour)
        && (0..60).contains(&minute)
        && (0..=60).contains(&second);
    valid.then(|| {
        days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset
    })
}

/// The RFC 3339 UTC timestamp of `secs` since the epoch, to the second.
pub fn format_utc(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day count since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A duration as the reports say it: whole seconds (`30 s`), or tenths under a second (`0.3 s`,
/// never less than `0.1 s` for a duration that is not zero).
pub fn seconds(d: std::time::Duration) -> String {
    if d < std::time::Duration::from_secs(1) && !d.is_zero() {
        format!("{:.1} s", d.as_secs_f64().max(0.1))
    } else {
        format!("{} s", d.as_secs_f64().round())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_across_leap_years_and_eras() {
        for secs in [
            0,
            951_782_400,
            1_709_164_800,
            -86_400,
            4_102_444_799,
            1_796_032_861,
        ] {
            assert_eq!(parse_rfc3339(&format_utc(secs)), Some(secs), "{secs}");
        }
        assert_eq!(format_utc(951_782_400), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn huge_offsets_and_years_are_not_timestamps() {
        // Found by the `files` fuzz target: an offset of 10^17 hours overflowed.
        assert_eq!(
            parse_rfc3339("22-233-22TT}{999--6-525632111111116633:6T36T"),
            None
        );
        assert_eq!(parse_rfc3339("2026-11-30T10:00:00+99999999999999:00"), None);
        assert_eq!(parse_rfc3339("99999999999999999-01-01T00:00:00Z"), None);
    }

    #[test]
    fn rejects_what_is_not_a_timestamp() {
        for bad in [
            "",
            "2026-13-01T00:00:00Z",
            "2026-11-30",
            "2026-11-30T25:00:00Z",
            "x-y-zTa:b:cZ",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }
}
