//! Lua checks: `*.lua` parses as Lua 5.1 with the LuaJIT and Lua 5.2 additions
//! (full_moon), after a cheap scan that refuses nesting too deep to parse safely.

use crate::problem::{Check, Problem};

/// The most syntax levels a Lua chunk may nest: LuaJIT's `LJ_MAX_XLEVEL` and Lua 5.1's
/// `LUAI_MAXCCALLS` (beyond, both refuse the chunk: "chunk has too many syntax levels").
pub const LUA_MAX_LEVELS: usize = 200;

/// Stack for the Lua parser, which recurses about 40 KB per level in a debug build.
const LUA_STACK: usize = 64 * 1024 * 1024;

pub(super) fn check_lua(path: &str, bytes: &[u8], out: &mut Vec<Problem>) {
    let text = String::from_utf8_lossy(bytes);
    if let Some(offset) = lua_too_deep(text.as_bytes(), LUA_MAX_LEVELS) {
        out.push(Problem::at(
            path,
            &text,
            offset,
            Check::Lua,
            format!("Lua: nesting deeper than {LUA_MAX_LEVELS} levels (chunk has too many syntax levels)"),
        ));
        return;
    }
    // Parse on a thread with a stack that fits LUA_MAX_LEVELS of the deepest construct.
    let parsed = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("assetvc-lua".into())
            .stack_size(LUA_STACK)
            .spawn_scoped(scope, || {
                let version = full_moon::LuaVersion::lua51().with_lua52().with_luajit();
                let result = full_moon::parse_fallible(&text, version);
                result
                    .errors()
                    .first()
                    .map(|e| (e.range().0.bytes(), e.error_message().into_owned()))
            })
            .map(|handle| handle.join())
    });
    match parsed {
        Ok(Ok(None)) => {}
        Ok(Ok(Some((offset, message)))) => {
            out.push(Problem::at(
                path,
                &text,
                offset,
                Check::Lua,
                format!("Lua: {message}"),
            ));
        }
        Ok(Err(_)) => out.push(Problem::whole_file(
            path,
            Check::Internal,
            "the Lua parser crashed",
        )),
        Err(e) => out.push(Problem::whole_file(
            path,
            Check::Internal,
            format!("cannot start the Lua parser: {e}"),
        )),
    }
}

/// The offset of the first token at which a cheap scan of Lua source counts more than
/// `limit` syntax levels: open brackets and blocks (`function if do repeat` … `end
/// until`) plus the current run of right-recursive operators (`..`, `^`, unary `not - #
/// ~`), which real Lua parsers recurse on too. Strings and comments are skipped. It
/// keeps the recursive parser from ever overflowing its stack on hostile input.
fn lua_too_deep(src: &[u8], limit: usize) -> Option<usize> {
    let n = src.len();
    let mut levels = Levels::default();
    let mut i = 0;
    while i < n {
        let start = i;
        match src[i] {
            b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c => {
                i += 1;
                continue;
            }
            b'-' if src.get(i + 1) == Some(&b'-') => {
                i = comment_end(src, i + 2);
                continue;
            }
            b'"' | b'\'' => {
                i = short_string_end(src, i);
                levels.operand();
            }
            b'[' => match long_open(src, i) {
                Some(len) => {
                    i = long_close(src, i + len, len);
                    levels.operand();
                }
                None => i += levels.symbol(&src[i..]),
            },
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                i = word_end(src, i);
                levels.word(&src[start..i]);
            }
            b'0'..=b'9' => {
                i = number_end(src, i);
                levels.operand();
            }
            b'.' if src.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                i = fraction_end(src, i);
                levels.operand = true;
            }
            _ => i += levels.symbol(&src[i..]),
        }
        if levels.depth + levels.run > limit {
            return Some(start);
        }
    }
    None
}

/// The syntax levels open at a point of a scan of Lua source ([`lua_too_deep`]).
#[derive(Default)]
struct Levels {
    /// Open blocks and brackets.
    depth: usize,
    /// The current run of right-recursive operators.
    run: usize,
    /// Whether the previous token ends an operand (then `-` is binary, and another
    /// operand ends the run).
    operand: bool,
}

impl Levels {
    /// An operand: a name, a string, a number, `nil`, `true`, `false`.
    fn operand(&mut self) {
        if self.operand {
            self.run = 0;
        }
        self.operand = true;
    }

    /// A token after which an expression starts afresh.
    fn restart(&mut self) {
        self.run = 0;
        self.operand = false;
    }

    /// A keyword or a name.
    fn word(&mut self, word: &[u8]) {
        match word {
            b"function" | b"if" | b"do" | b"repeat" => {
                self.depth += 1;
                self.restart();
            }
            b"end" => {
                self.depth = self.depth.saturating_sub(1);
                self.run = 0;
                self.operand = true;
            }
            b"until" => {
                self.depth = self.depth.saturating_sub(1);
                self.restart();
            }
            b"not" => {
                self.run += 1;
                self.operand = false;
            }
            b"and" | b"or" => self.operand = false,
            b"local" | b"return" | b"then" | b"else" | b"elseif" | b"while" | b"for" | b"in"
            | b"goto" | b"break" => self.restart(),
            _ => self.operand(),
        }
    }

    /// The punctuation at the start of `rest` (not a comment, a string or a number):
    /// its length.
    fn symbol(&mut self, rest: &[u8]) -> usize {
        let ends_operand = match rest {
            [b'.', b'.', b'.', ..] => {
                self.operand = true;
                return 3;
            }
            [b'.', b'.', ..] => {
                self.run += 1;
                self.operand = false;
                return 2;
            }
            [b'(' | b'{' | b'[', ..] => {
                self.depth += 1;
                false
            }
            [b')' | b'}' | b']', ..] => {
                self.depth = self.depth.saturating_sub(1);
                true
            }
            [b'^', ..] => {
                self.run += 1;
                false
            }
            [b'-' | b'#' | b'~', ..] => {
                if !self.operand {
                    self.run += 1;
                }
                false
            }
            [b',' | b';', ..] => {
                self.run = 0;
                false
            }
            [b'=', rest @ ..] if rest.first() != Some(&b'=') => {
                self.run = 0;
                false
            }
            _ => false,
        };
        self.operand = ends_operand;
        1
    }
}

/// The end of a comment whose `--` ends at `from`: a long bracket's, or the line's.
fn comment_end(src: &[u8], from: usize) -> usize {
    match long_open(src, from) {
        Some(len) => long_close(src, from + len, len),
        None => {
            from + src[from.min(src.len())..]
                .iter()
                .take_while(|&&b| b != b'\n')
                .count()
        }
    }
}

/// The end of the quoted string opening at `at` (after its closing quote; a string cut by
/// a line break or the end of the source ends there).
fn short_string_end(src: &[u8], at: usize) -> usize {
    let quote = src[at];
    let mut i = at + 1;
    while i < src.len() && src[i] != quote && src[i] != b'\n' {
        i += if src[i] == b'\\' { 2 } else { 1 };
    }
    i + 1
}

/// The length of a long bracket `[==[` at `at` (its level + 2), if one opens there.
fn long_open(src: &[u8], at: usize) -> Option<usize> {
    let mut j = at + 1;
    while j < src.len() && src[j] == b'=' {
        j += 1;
    }
    (src.get(at) == Some(&b'[') && src.get(j) == Some(&b'[')).then_some(j - at + 1)
}

/// The end of a long bracket body from `from`, opened with `len` bytes (level = len - 2).
fn long_close(src: &[u8], from: usize, len: usize) -> usize {
    let n = src.len();
    let level = len - 2;
    let mut j = from;
    while j < n {
        if src[j] == b']'
            && src[j + 1..].iter().take(level).all(|&b| b == b'=')
            && src.len() > j + 1 + level
            && src[j + 1 + level] == b']'
        {
            return j + 2 + level;
        }
        j += 1;
    }
    n
}

/// The end of the name or keyword starting at `at`.
fn word_end(src: &[u8], at: usize) -> usize {
    at + src[at..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count()
}

/// The end of the number starting with a digit at `at` (hexadecimal, exponents with a
/// sign, suffixes such as LuaJIT's `ULL`).
fn number_end(src: &[u8], at: usize) -> usize {
    let mut i = at;
    while i < src.len() {
        let b = src[i];
        let exponent_sign =
            (b == b'+' || b == b'-') && matches!(src[i - 1], b'e' | b'E' | b'p' | b'P');
        if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || exponent_sign {
            i += 1;
        } else {
            break;
        }
    }
    i
}

/// The end of the number `.5…` whose dot is at `dot`.
fn fraction_end(src: &[u8], dot: usize) -> usize {
    let i = dot + 1;
    i + src[i..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'.')
        .count()
}
