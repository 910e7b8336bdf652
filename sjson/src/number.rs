//! Exact numeric values of number lexemes.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

/// The exact value of a number lexeme: integers are kept exactly (beyond 2^53),
/// other numbers are the nearest `f64`, which prints back to the same bits.
#[derive(Debug, Clone)]
pub enum NumberValue {
    /// An integer lexeme that fits in 128 bits.
    Int(i128),
    /// A lexeme with a fraction or exponent.
    Float(f64),
    /// An integer too large for 128 bits, as normalized decimal digits (sign kept).
    Big(String),
}

impl NumberValue {
    /// Parses a JSON number lexeme. Lexemes come from the grammar, so they are well formed.
    pub fn from_lexeme(lexeme: &str) -> NumberValue {
        let is_int = !lexeme.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'));
        if is_int {
            if let Ok(i) = lexeme.parse::<i128>() {
                return NumberValue::Int(i);
            }
            let (sign, digits) = match lexeme.strip_prefix('-') {
                Some(d) => ("-", d),
                None => ("", lexeme),
            };
            let digits = digits.trim_start_matches('0');
            return NumberValue::Big(format!("{sign}{digits}"));
        }
        NumberValue::Float(lexeme.parse::<f64>().unwrap_or(f64::NAN))
    }

    /// The value as `f64` (rounded for large integers).
    pub fn as_f64(&self) -> f64 {
        match self {
            NumberValue::Int(i) => *i as f64,
            NumberValue::Float(f) => *f,
            NumberValue::Big(s) => s.parse().unwrap_or(f64::NAN),
        }
    }

    /// The integer this value is exactly, if any (`2.0` is `2`).
    fn as_exact_int(&self) -> Option<i128> {
        match self {
            NumberValue::Int(i) => Some(*i),
            NumberValue::Float(f) => {
                // Every integral f64 in [-2^127, 2^127) converts to i128 exactly.
                if f.fract() == 0.0 && (-TWO_127..TWO_127).contains(f) {
                    Some(*f as i128)
                } else {
                    None
                }
            }
            NumberValue::Big(_) => None,
        }
    }
}

/// 2^127: integral floats below it in magnitude are exact `i128`s.
const TWO_127: f64 = 170141183460469231731687303715884105728.0;

/// Compares two lexemes by value (see [`NumberKey`]): `1`, `1.0` and `1e0` are equal;
/// `1e400` and `2e400` are not (though both overflow `f64`), nor are `0.0` and `-0.0`.
pub fn lexemes_equal(a: &str, b: &str) -> bool {
    a == b || NumberKey::from_lexeme(a) == NumberKey::from_lexeme(b)
}

/// The identity of a number lexeme for value equality and hashing: integers exactly
/// (`2.0` is `2`), other floats by the bits of the nearest `f64` (so a 17-digit and a
/// shortest rendering of one float are equal, and `-0.0` differs from `0.0`), and lexemes
/// that `f64` cannot hold — beyond its range (`1e400`) or a non-zero value rounding to zero
/// (`1e-400`) — by exact decimal value. The sign of zero counts: `-0` is `-0.0`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NumberKey(Key);

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Zero { negative: bool },
    Int(i128),
    Big(String),
    Bits(u64),
    Decimal(Decimal),
}

impl NumberKey {
    /// The key of a number lexeme.
    pub fn from_lexeme(lexeme: &str) -> NumberKey {
        let negative = lexeme.starts_with('-');
        let value = NumberValue::from_lexeme(lexeme);
        NumberKey(match value {
            NumberValue::Big(s) => Key::Big(s),
            NumberValue::Int(0) => Key::Zero { negative },
            NumberValue::Int(i) => Key::Int(i),
            // The exact decimal is needed only where `f64` cannot hold the value: beyond
            // its range, or rounded to zero; it is not computed for the common case.
            NumberValue::Float(f) if !f.is_finite() || f == 0.0 => {
                let exact = Decimal::from_lexeme(lexeme);
                if !f.is_finite() || !exact.is_zero() {
                    Key::Decimal(exact)
                } else {
                    Key::Zero { negative }
                }
            }
            NumberValue::Float(f) => {
                if let Some(i) = value.as_exact_int() {
                    Key::Int(i)
                } else {
                    Key::Bits(f.to_bits())
                }
            }
        })
    }
}

/// The exact decimal value a number lexeme denotes: `±digits × 10^exponent` with no
/// leading or trailing zero digits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Decimal {
    negative: bool,
    /// Significant digits (ASCII), empty for zero; the lexeme itself if it is not a
    /// decimal number (then `exponent` is `i128::MIN`).
    digits: String,
    exponent: i128,
}

impl Decimal {
    /// Reads `[+-]digits[.digits][(e|E)[+-]digits]`; anything else (or an exponent beyond
    /// `i128`) stands for itself, equal only to the same text.
    fn from_lexeme(lexeme: &str) -> Decimal {
        Decimal::parse(lexeme).unwrap_or_else(|| Decimal {
            negative: false,
            digits: lexeme.to_string(),
            exponent: i128::MIN,
        })
    }

    fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    fn parse(lexeme: &str) -> Option<Decimal> {
        let (negative, rest) = match lexeme.as_bytes().first()? {
            b'-' => (true, &lexeme[1..]),
            b'+' => (false, &lexeme[1..]),
            _ => (false, lexeme),
        };
        let (mantissa, exponent) = match rest.find(['e', 'E']) {
            Some(e) => (&rest[..e], rest[e + 1..].parse::<i128>().ok()?),
            None => (rest, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if int.len() + frac.len() == 0 || !all_digits(int) || !all_digits(frac) {
            return None;
        }
        let digits = format!("{int}{frac}");
        let digits = digits.trim_start_matches('0');
        let significant = digits.trim_end_matches('0');
        let shift = i128::try_from(digits.len() - significant.len()).ok()?;
        let frac_len = i128::try_from(frac.len()).ok()?;
        let exponent = if significant.is_empty() {
            0
        } else {
            exponent.checked_sub(frac_len)?.checked_add(shift)?
        };
        Some(Decimal {
            negative,
            digits: significant.to_string(),
            exponent,
        })
    }
}

impl PartialEq for NumberValue {
    /// Equality is by exact value (see [`NumberValue`]).
    fn eq(&self, other: &Self) -> bool {
        value_cmp(self, other) == Some(Ordering::Equal)
    }
}

impl Eq for NumberValue {}

fn value_cmp(a: &NumberValue, b: &NumberValue) -> Option<Ordering> {
    use NumberValue::*;
    match (a, b) {
        (Int(x), Int(y)) => Some(x.cmp(y)),
        (Big(x), Big(y)) => Some(if x == y { Ordering::Equal } else { x.cmp(y) }),
        (Big(_), _) | (_, Big(_)) => None,
        _ => match (a.as_exact_int(), b.as_exact_int()) {
            (Some(x), Some(y)) => Some(x.cmp(&y)),
            (None, None) => a.as_f64().partial_cmp(&b.as_f64()),
            // An integer never equals a float with a fraction or beyond i128, even when
            // rounding it to f64 would make them look equal.
            _ => None,
        },
    }
}

impl Hash for NumberValue {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self.as_exact_int() {
            Some(i) => {
                0u8.hash(state);
                i.hash(state);
            }
            None => match self {
                NumberValue::Big(s) => {
                    1u8.hash(state);
                    s.hash(state);
                }
                other => {
                    2u8.hash(state);
                    other.as_f64().to_bits().hash(state);
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_beyond_f64_are_exact() {
        assert!(!lexemes_equal("9007199254740993", "9007199254740992"));
        assert!(lexemes_equal("9007199254740993", "9007199254740993"));
        assert!(!lexemes_equal(
            "123456789012345678901234567890123456789012",
            "123456789012345678901234567890123456789013"
        ));
    }

    #[test]
    fn int_and_float_forms_compare_by_value() {
        assert!(lexemes_equal("1", "1.0"));
        assert!(lexemes_equal("1E-05", "0.00001"));
        assert!(lexemes_equal("-0", "-0.0"));
        assert!(!lexemes_equal("0.1", "0.2"));
    }
}

#[cfg(test)]
mod value_tests {
    use std::collections::hash_map::DefaultHasher;

    use super::*;

    fn hash(n: &impl Hash) -> u64 {
        let mut h = DefaultHasher::new();
        n.hash(&mut h);
        h.finish()
    }

    #[test]
    fn lexemes_map_to_the_right_variant() {
        assert!(matches!(NumberValue::from_lexeme("0"), NumberValue::Int(0)));
        assert!(matches!(
            NumberValue::from_lexeme("-0"),
            NumberValue::Int(0)
        ));
        let max = i128::MAX.to_string();
        let min = i128::MIN.to_string();
        assert!(matches!(
            NumberValue::from_lexeme(&max),
            NumberValue::Int(i128::MAX)
        ));
        assert!(matches!(
            NumberValue::from_lexeme(&min),
            NumberValue::Int(i128::MIN)
        ));
        match NumberValue::from_lexeme("170141183460469231731687303715884105728") {
            NumberValue::Big(s) => assert_eq!(s, "170141183460469231731687303715884105728"),
            other => panic!("{other:?}"),
        }
        match NumberValue::from_lexeme("-170141183460469231731687303715884105729") {
            NumberValue::Big(s) => assert_eq!(s, "-170141183460469231731687303715884105729"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(NumberValue::from_lexeme("1.0"), NumberValue::Float(f) if f == 1.0));
        assert!(
            matches!(NumberValue::from_lexeme("-0.0"), NumberValue::Float(f) if f.to_bits() == (-0.0f64).to_bits())
        );
        assert!(
            matches!(NumberValue::from_lexeme("1e400"), NumberValue::Float(f) if f == f64::INFINITY)
        );
        assert!(matches!(NumberValue::from_lexeme("1e-400"), NumberValue::Float(f) if f == 0.0));
        assert!(
            matches!(NumberValue::from_lexeme("4.9406564584124654e-324"), NumberValue::Float(f) if f.to_bits() == 1)
        );
    }

    #[test]
    fn exact_comparison() {
        assert!(lexemes_equal("1e2", "100"));
        assert!(lexemes_equal("1E+2", "100.000"));
        assert!(lexemes_equal("0.0", "0"));
        assert!(lexemes_equal("1e400", "10e399"));
        assert!(!lexemes_equal("1e400", "-1e400"));
        assert!(lexemes_equal(
            &i128::MAX.to_string(),
            &i128::MAX.to_string()
        ));
        assert!(!lexemes_equal(
            "170141183460469231731687303715884105727",
            "170141183460469231731687303715884105726"
        ));
        // 2^53 + 1 is exact as an integer; as a float lexeme it is the nearest f64.
        assert!(!lexemes_equal("9007199254740993", "9007199254740993.0"));
        assert!(lexemes_equal("9007199254740992", "9007199254740993.0"));
        assert!(!lexemes_equal("0.30000000000000004", "0.3"));
        assert!(lexemes_equal("0.3", "0.29999999999999998"));
        // Beyond f64's range and the sign of zero are changes (issue 12).
        assert!(!lexemes_equal("1e400", "2e400"));
        assert!(!lexemes_equal("1e-400", "2e-400"));
        assert!(!lexemes_equal("0.0", "-0.0"));
        assert!(!lexemes_equal("0", "-0"));
        assert!(lexemes_equal("-0", "-0e7"));
        assert!(!lexemes_equal("1", "-1"));
        assert!(!lexemes_equal("1.5", "1"));
    }

    #[test]
    fn decimals_are_normalized() {
        let d = Decimal::from_lexeme;
        assert_eq!(d("0012.3400e+02"), d("1234"));
        assert_eq!(d("1E-05"), d("0.00001"));
        assert_eq!(d("+5"), d("5"));
        assert_ne!(d("1e99999999999999999999999999999999999999999"), d("1e400"));
        assert_eq!(d("nan"), d("nan"));
        assert_ne!(d("1."), d("nan"));
    }

    #[test]
    fn keys_of_equal_lexemes_hash_alike() {
        let groups: &[&[&str]] = &[
            &["0", "0.0", "0e5", "+0"],
            &["-0", "-0.0", "-0e-3"],
            &["1", "1.0", "1e0", "10e-1"],
            &["0.1", "0.10000000000000001", "1e-1"],
            &["1e400", "1E400", "10e399"],
            &["1e-400", "0.1e-399"],
        ];
        for group in groups {
            let keys: Vec<_> = group.iter().map(|l| NumberKey::from_lexeme(l)).collect();
            for (a, la) in keys.iter().zip(group.iter()) {
                for (b, lb) in keys.iter().zip(group.iter()) {
                    assert_eq!(a, b, "{la} vs {lb}");
                    assert_eq!(hash(a), hash(b), "{la} vs {lb}");
                }
            }
        }
        // And different groups differ.
        for (i, g) in groups.iter().enumerate() {
            for h in &groups[i + 1..] {
                assert!(!lexemes_equal(g[0], h[0]), "{} vs {}", g[0], h[0]);
            }
        }
    }

    #[test]
    fn equal_values_hash_alike() {
        let groups: &[&[&str]] = &[
            &["0", "-0", "0.0", "-0.0", "0e5"],
            &["1", "1.0", "1e0", "10e-1"],
            &["-1180591620717411303424", "-1180591620717411303424.0"], // -2^70
            &["0.5", "5e-1", "0.50"],
            &["1e400", "1E401"],
            &[
                "123456789012345678901234567890123456789012",
                "123456789012345678901234567890123456789012",
            ],
        ];
        for group in groups {
            let values: Vec<_> = group.iter().map(|l| NumberValue::from_lexeme(l)).collect();
            for (a, la) in values.iter().zip(group.iter()) {
                for (b, lb) in values.iter().zip(group.iter()) {
                    assert_eq!(a, b, "{la} vs {lb}");
                    assert_eq!(hash(a), hash(b), "{la} vs {lb}");
                }
            }
        }
    }

    #[test]
    fn integers_near_2_pow_127_compare_exactly() {
        // Regression: integral floats at or above 1.7e38 compared with integers through
        // f64 rounding (`i128::MAX` equal to 2^127) and hashed apart from equal integers.
        let max = i128::MAX.to_string();
        assert!(!lexemes_equal(&max, "1.7014118346046923e38"));
        assert!(!lexemes_equal("1.7014118346046923e38", &max));
        let f = NumberValue::from_lexeme("1.7e38");
        let exact = format!("{}", 1.7e38f64 as i128);
        let i = NumberValue::from_lexeme(&exact);
        assert!(matches!(i, NumberValue::Int(_)));
        assert_eq!(f, i);
        assert_eq!(hash(&f), hash(&i));
        let below = NumberValue::from_lexeme(&format!("{}", 1.7e38f64 as i128 - 1));
        assert_ne!(f, below);
        let min = NumberValue::from_lexeme(&i128::MIN.to_string());
        let min_f = NumberValue::from_lexeme("-1.7014118346046923e38");
        assert_eq!(min, min_f);
        assert_eq!(hash(&min), hash(&min_f));
        // Fractions never equal integers.
        assert_ne!(
            NumberValue::from_lexeme("1"),
            NumberValue::from_lexeme("1.5")
        );
    }

    #[test]
    fn as_f64_rounds_large_integers() {
        assert_eq!(
            NumberValue::from_lexeme("9007199254740993").as_f64(),
            9007199254740992.0
        );
        assert_eq!(
            NumberValue::from_lexeme("123456789012345678901234567890123456789012").as_f64(),
            1.2345678901234568e41
        );
        assert_eq!(NumberValue::from_lexeme("-2.5").as_f64(), -2.5);
    }
}

#[cfg(test)]
mod key_properties {
    use super::*;
    use proptest::prelude::*;

    fn finite() -> impl Strategy<Value = f64> {
        any::<u64>()
            .prop_map(f64::from_bits)
            .prop_filter("finite", |f| f.is_finite())
    }

    proptest! {
        /// Finite floats are equal exactly when their bits are (the sign of zero counts),
        /// whichever rendering of them is read.
        #[test]
        fn float_keys_follow_the_bits(a in finite(), b in finite()) {
            let (da, ea, db) = (format!("{a:?}"), format!("{a:e}"), format!("{b:?}"));
            prop_assert!(lexemes_equal(&da, &ea));
            prop_assert_eq!(lexemes_equal(&da, &db), a.to_bits() == b.to_bits());
        }

        /// Out of f64's range, lexemes are equal exactly when their decimal values are.
        #[test]
        fn overflowing_keys_are_exact(m in 1u32..1000, n in 1u32..1000, e in 400i32..500) {
            let (a, b) = (format!("{m}e{e}"), format!("{n}e{e}"));
            prop_assert_eq!(lexemes_equal(&a, &b), m == n);
            let scaled = format!("{m}0e{}", e - 1);
            prop_assert!(lexemes_equal(&a, &scaled));
            let (a, b) = (format!("{m}e-{e}"), format!("{n}e-{e}"));
            prop_assert_eq!(lexemes_equal(&a, &b), m == n);
        }
    }
}
