//! GitHub Actions expressions (`${{ … }}` and `if:`), evaluated as the host does for the
//! subset the workflows use: contexts (`github.event.pull_request.number`), literals,
//! `== != < <= > >= && || !`, parentheses and the functions `startsWith`, `endsWith`,
//! `contains`, `fromJSON`, `toJSON`, `format`, `hashFiles`, `always`, `success`, `failure`,
//! `cancelled`. Anything else panics: a workflow that needs more is a test to extend,
//! never a silent guess.

use serde_json::Value;

/// What an expression can read: the contexts by name, and whether a step failed.
pub struct Scope<'a> {
    /// `github`, `env`, `secrets`, `runner`, `steps`… as JSON objects.
    pub contexts: &'a serde_json::Map<String, Value>,
    /// Whether an earlier step of the job failed (`success()`, `failure()`).
    pub failed: bool,
}

/// Evaluates `expr` (without `${{ }}`) in `scope`.
pub fn eval(expr: &str, scope: &Scope<'_>) -> Value {
    let tokens = lex(expr);
    let mut p = Parser {
        tokens,
        at: 0,
        scope,
    };
    let v = p.or();
    assert!(
        p.at == p.tokens.len(),
        "expression {expr:?}: unexpected {:?}",
        p.tokens.get(p.at)
    );
    v
}

/// Replaces every `${{ … }}` in `text` by its value as a string, as the host does before
/// a step sees the text.
pub fn substitute(text: &str, scope: &Scope<'_>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..]
            .find("}}")
            .unwrap_or_else(|| panic!("unclosed ${{{{ in {text:?}"));
        out.push_str(&to_text(&eval(&rest[start + 3..start + end], scope)));
        rest = &rest[start + end + 2..];
    }
    out.push_str(rest);
    out
}

/// A job's or step's `if:` (with or without `${{ }}`) as the host decides it.
pub fn condition(expr: &str, scope: &Scope<'_>) -> bool {
    let e = expr.trim();
    let e = e
        .strip_prefix("${{")
        .and_then(|e| e.strip_suffix("}}"))
        .unwrap_or(e);
    truthy(&eval(e, scope))
}

/// A value as the host writes it into text: null is empty, objects are JSON.
pub fn to_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

/// Truthiness: false, 0, -0, NaN, "" and null are false.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    Str(String),
    Num(f64),
    Op(&'static str),
}

fn lex(s: &str) -> Vec<Token> {
    const OPS: [&str; 14] = [
        "==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "(", ")", "[", "]", ",",
    ];
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if c == '.' && !b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            out.push(Token::Op("."));
            i += 1;
        } else if c == '\'' {
            let mut text = String::new();
            i += 1;
            loop {
                let rest = &s[i..];
                let q = rest
                    .find('\'')
                    .unwrap_or_else(|| panic!("unclosed string in {s:?}"));
                text.push_str(&rest[..q]);
                i += q + 1;
                if b.get(i) == Some(&b'\'') {
                    text.push('\'');
                    i += 1;
                } else {
                    break;
                }
            }
            out.push(Token::Str(text));
        } else if c.is_ascii_digit() || c == '-' || c == '.' {
            let len = s[i..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
                .unwrap_or(s.len() - i);
            let n = s[i..i + len].parse().unwrap_or(f64::NAN);
            out.push(Token::Num(n));
            i += len;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let len = s[i..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .unwrap_or(s.len() - i);
            out.push(Token::Ident(s[i..i + len].to_string()));
            i += len;
        } else if let Some(op) = OPS.iter().find(|op| s[i..].starts_with(*op)) {
            out.push(Token::Op(op));
            i += op.len();
        } else {
            panic!("expression {s:?}: unexpected {c:?}");
        }
    }
    out
}

struct Parser<'s, 'a> {
    tokens: Vec<Token>,
    at: usize,
    scope: &'s Scope<'a>,
}

impl Parser<'_, '_> {
    fn eat(&mut self, op: &str) -> bool {
        if matches!(self.tokens.get(self.at), Some(Token::Op(o)) if *o == op) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Value {
        let mut v = self.and();
        while self.eat("||") {
            let r = self.and();
            if !truthy(&v) {
                v = r;
            }
        }
        v
    }

    fn and(&mut self) -> Value {
        let mut v = self.compare();
        while self.eat("&&") {
            let r = self.compare();
            if truthy(&v) {
                v = r;
            }
        }
        v
    }

    fn compare(&mut self) -> Value {
        let l = self.unary();
        for op in ["==", "!=", "<=", ">=", "<", ">"] {
            if self.eat(op) {
                let r = self.unary();
                let ord = order(&l, &r);
                use std::cmp::Ordering::*;
                return Value::Bool(match op {
                    "==" => ord == Some(Equal),
                    "!=" => ord != Some(Equal),
                    "<=" => matches!(ord, Some(Less | Equal)),
                    ">=" => matches!(ord, Some(Greater | Equal)),
                    "<" => ord == Some(Less),
                    _ => ord == Some(Greater),
                });
            }
        }
        l
    }

    fn unary(&mut self) -> Value {
        if self.eat("!") {
            return Value::Bool(!truthy(&self.unary()));
        }
        let mut v = self.primary();
        loop {
            if self.eat(".") {
                let Some(Token::Ident(name)) = self.tokens.get(self.at).cloned() else {
                    panic!("a property name after `.`");
                };
                self.at += 1;
                v = property(&v, &name);
            } else if self.eat("[") {
                let key = self.or();
                assert!(self.eat("]"), "`]` expected");
                v = match (&v, &key) {
                    (Value::Array(a), Value::Number(n)) => n
                        .as_u64()
                        .and_then(|i| a.get(i as usize).cloned())
                        .unwrap_or(Value::Null),
                    _ => property(&v, &to_text(&key)),
                };
            } else {
                return v;
            }
        }
    }

    fn primary(&mut self) -> Value {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        match token {
            Some(Token::Str(s)) => Value::String(s),
            Some(Token::Num(n)) => serde_json::json!(n),
            Some(Token::Op("(")) => {
                let v = self.or();
                assert!(self.eat(")"), "`)` expected");
                v
            }
            Some(Token::Ident(name)) => match name.as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                "null" => Value::Null,
                _ if self.eat("(") => {
                    let mut args = Vec::new();
                    if !self.eat(")") {
                        loop {
                            args.push(self.or());
                            if self.eat(")") {
                                break;
                            }
                            assert!(self.eat(","), "`,` expected in a call of {name}");
                        }
                    }
                    call(&name, &args, self.scope)
                }
                _ => property(&Value::Object(self.scope.contexts.clone()), &name),
            },
            other => panic!("unexpected {other:?}"),
        }
    }
}

/// `v.name`: property names are case-insensitive; anything else gives null.
fn property(v: &Value, name: &str) -> Value {
    match v {
        Value::Object(m) => m
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map_or(Value::Null, |(_, v)| v.clone()),
        _ => Value::Null,
    }
}

fn call(name: &str, args: &[Value], scope: &Scope<'_>) -> Value {
    let text = |i: usize| to_text(args.get(i).unwrap_or(&Value::Null)).to_lowercase();
    match name.to_ascii_lowercase().as_str() {
        "startswith" => Value::Bool(text(0).starts_with(&text(1))),
        "endswith" => Value::Bool(text(0).ends_with(&text(1))),
        "contains" => Value::Bool(match args.first() {
            Some(Value::Array(a)) => a
                .iter()
                .any(|x| order(x, &args[1]) == Some(std::cmp::Ordering::Equal)),
            _ => text(0).contains(&text(1)),
        }),
        "fromjson" => serde_json::from_str(&to_text(&args[0]))
            .unwrap_or_else(|e| panic!("fromJSON({:?}): {e}", args[0])),
        "tojson" => Value::String(serde_json::to_string_pretty(&args[0]).unwrap_or_default()),
        "format" => {
            let mut s = to_text(&args[0]);
            for (i, a) in args.iter().enumerate().skip(1) {
                s = s.replace(&format!("{{{}}}", i - 1), &to_text(a));
            }
            Value::String(s)
        }
        // The cache key only: a fixed digest serves.
        "hashfiles" => Value::String("0123456789abcdef".into()),
        "always" => Value::Bool(true),
        "success" => Value::Bool(!scope.failed),
        "failure" => Value::Bool(scope.failed),
        "cancelled" => Value::Bool(false),
        other => panic!("function {other} is not emulated"),
    }
}

/// Comparison as the host does it: strings case-insensitively, same kinds by value, other
/// kinds as numbers (null 0, booleans 0/1, strings parsed); objects only to themselves.
fn order(l: &Value, r: &Value) -> Option<std::cmp::Ordering> {
    match (l, r) {
        (Value::String(a), Value::String(b)) => Some(a.to_lowercase().cmp(&b.to_lowercase())),
        (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => {
            (l == r).then_some(std::cmp::Ordering::Equal)
        }
        _ => number(l).partial_cmp(&number(r)),
    }
}

fn number(v: &Value) -> f64 {
    match v {
        Value::Null => 0.0,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) if s.trim().is_empty() => 0.0,
        Value::String(s) => s.trim().parse().unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}

#[test]
fn expressions_evaluate_as_the_host_does() {
    let contexts = serde_json::json!({
        "github": {"event_name": "issue_comment", "event": {
            "issue": {"number": 7, "pull_request": {"url": "x"}},
            "comment": {"body": "/assetvc land please", "author_association": "MEMBER"}}}
    });
    let scope = Scope {
        contexts: contexts.as_object().unwrap(),
        failed: true,
    };
    let yes = "github.event_name == 'ISSUE_COMMENT' && github.event.issue.pull_request && \
               startsWith(github.event.comment.body, '/assetvc land') && \
               contains(fromJSON('[\"OWNER\",\"MEMBER\"]'), github.event.comment.author_association)";
    assert!(condition(yes, &scope));
    assert!(condition("github.event.action != 'labeled'", &scope));
    assert!(!condition("github.event.label.name == 'x'", &scope));
    assert!(!condition("success()", &scope));
    assert!(condition("${{ always() }}", &scope));
    let n = "${{ github.event.pull_request.number || github.event.issue.number }}";
    assert_eq!(substitute(n, &scope), "7");
    assert_eq!(substitute("a-${{ 'it''s' }}-b", &scope), "a-it's-b");
}
