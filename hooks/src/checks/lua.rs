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
    let (mut i, mut depth, mut run) = (0usize, 0usize, 0usize);
    let mut operand = false; // the previous token ends an operand
                             // The length of a long bracket `[==[` at `at` (its level + 2), if one opens there.
    let long_open = |at: usize| -> Option<usize> {
        let mut j = at + 1;
        while j < n && src[j] == b'=' {
            j += 1;
        }
        (src.get(at) == Some(&b'[') && src.get(j) == Some(&b'[')).then_some(j - at + 1)
    };
    // The end of a long bracket body opened with `len` bytes (level = len - 2).
    let long_close = |from: usize, len: usize| -> usize {
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
    };
    while i < n {
        let start = i;
        let c = src[i];
        match c {
            b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c => {
                i += 1;
                continue;
            }
            b'-' if src.get(i + 1) == Some(&b'-') => {
                i += 2;
                match long_open(i) {
                    Some(len) => i = long_close(i + len, len),
                    None => {
                        while i < n && src[i] != b'\n' {
                            i += 1;
                        }
                    }
                }
                continue;
            }
            b'"' | b'\'' => {
                i += 1;
                while i < n && src[i] != c && src[i] != b'\n' {
                    i += if src[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                if operand {
                    run = 0;
                }
                operand = true;
            }
            b'[' if long_open(i).is_some() => {
                let len = long_open(i).unwrap_or(2);
                i = long_close(i + len, len);
                if operand {
                    run = 0;
                }
                operand = true;
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                while i < n && (src[i].is_ascii_alphanumeric() || src[i] == b'_') {
                    i += 1;
                }
                match &src[start..i] {
                    b"function" | b"if" | b"do" | b"repeat" => {
                        depth += 1;
                        run = 0;
                        operand = false;
                    }
                    b"end" => {
                        depth = depth.saturating_sub(1);
                        run = 0;
                        operand = true;
                    }
                    b"until" => {
                        depth = depth.saturating_sub(1);
                        run = 0;
                        operand = false;
                    }
                    b"not" => {
                        run += 1;
                        operand = false;
                    }
                    b"and" | b"or" => operand = false,
                    b"nil" | b"true" | b"false" => {
                        if operand {
                            run = 0;
                        }
                        operand = true;
                    }
                    b"local" | b"return" | b"then" | b"else" | b"elseif" | b"while" | b"for"
                    | b"in" | b"goto" | b"break" => {
                        run = 0;
                        operand = false;
                    }
                    _ => {
                        if operand {
                            run = 0;
                        }
                        operand = true;
                    }
                }
            }
            b'0'..=b'9' => {
                while i < n {
                    let b = src[i];
                    let exponent_sign =
                        (b == b'+' || b == b'-') && matches!(src[i - 1], b'e' | b'E' | b'p' | b'P');
                    if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || exponent_sign {
                        i += 1;
                    } else {
                        break;
                    }
                }
                if operand {
                    run = 0;
                }
                operand = true;
            }
            b'.' if src.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                i += 1;
                while i < n && (src[i].is_ascii_alphanumeric() || src[i] == b'.') {
                    i += 1;
                }
                operand = true;
            }
            b'.' if src[i..].starts_with(b"...") => {
                i += 3;
                operand = true;
            }
            b'.' if src[i..].starts_with(b"..") => {
                i += 2;
                run += 1;
                operand = false;
            }
            b'(' | b'{' | b'[' => {
                i += 1;
                depth += 1;
                operand = false;
            }
            b')' | b'}' | b']' => {
                i += 1;
                depth = depth.saturating_sub(1);
                operand = true;
            }
            b'^' => {
                i += 1;
                run += 1;
                operand = false;
            }
            b'-' | b'#' | b'~' => {
                i += 1;
                if !operand {
                    run += 1;
                }
                operand = false;
            }
            b',' | b';' => {
                i += 1;
                run = 0;
                operand = false;
            }
            b'=' if src.get(i + 1) != Some(&b'=') => {
                i += 1;
                run = 0;
                operand = false;
            }
            _ => {
                i += 1;
                operand = false;
            }
        }
        if depth + run > limit {
            return Some(start);
        }
    }
    None
}
