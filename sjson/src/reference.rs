//! The reference parser: the pest grammars (`grammar/sjson.pest`, `grammar/json.pest`)
//! are the specification of what assetvc accepts. The production parser (`parse.rs`) is a
//! hand-written byte scanner that is 6–10× faster (BENCHMARKS.md); tests and a fuzz
//! target check that both accept the same texts and build the same node table.

use pest::iterators::Pair;
use pest::Parser as _;
use pest::RuleType;

use crate::doc::{self, Dialect, Document, Extra, Node, Tag};
use crate::error::{ErrorKind, ParseError};
use crate::parse::ParseOptions;
use crate::string::Quoting;

mod sjson_grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "grammar/sjson.pest"]
    pub struct SjsonParser;
}

mod json_grammar {
    #[derive(pest_derive::Parser)]
    #[grammar = "grammar/json.pest"]
    pub struct JsonParser;
}

use json_grammar::{JsonParser, Rule as JRule};
use sjson_grammar::{Rule as SRule, SjsonParser};

/// Parses `text` with the pest grammar of `options.dialect`. Deep nesting is rejected
/// first, as the production parser does, so the recursive grammar never sees it.
pub fn parse_reference(text: &str, options: ParseOptions) -> Result<Document, ParseError> {
    crate::parse::check_depth(text, options)?;
    let (b, root_braced) = match options.dialect {
        Dialect::Sjson => build_sjson(text)?,
        Dialect::Json => (build_json(text)?, true),
    };
    let mut doc = Document {
        text: text.to_string().into(),
        nodes: b.nodes,
        extras: b.extras,
        dialect: options.dialect,
        root_braced,
        line_starts: std::sync::OnceLock::new(),
    };
    doc.shrink_tables();
    Ok(doc)
}

/// What a grammar's rule means for the node table.
trait GrammarRule: RuleType {
    fn tag(self) -> Option<Tag>;
    fn is_member(self) -> bool;
    fn describe(self) -> &'static str;
}

impl GrammarRule for SRule {
    fn tag(self) -> Option<Tag> {
        Some(match self {
            SRule::null => Tag::Null,
            SRule::true_ => Tag::True,
            SRule::false_ => Tag::False,
            SRule::number => Tag::Number,
            SRule::string => Tag::Quoted,
            SRule::raw_string => Tag::Raw,
            SRule::bare => Tag::Bare,
            SRule::array => Tag::Array,
            SRule::object | SRule::root_braced => Tag::Object,
            _ => return None,
        })
    }
    fn is_member(self) -> bool {
        self == SRule::member
    }
    fn describe(self) -> &'static str {
        match self {
            SRule::member => "key",
            SRule::EOI => "end of file",
            SRule::object => "object",
            SRule::array => "value",
            SRule::string | SRule::raw_string => "string",
            SRule::bare => "key or value",
            SRule::number => "number",
            _ => "value",
        }
    }
}

impl GrammarRule for JRule {
    fn tag(self) -> Option<Tag> {
        Some(match self {
            JRule::null => Tag::Null,
            JRule::true_ => Tag::True,
            JRule::false_ => Tag::False,
            JRule::number => Tag::Number,
            JRule::string => Tag::Quoted,
            JRule::array => Tag::Array,
            JRule::object => Tag::Object,
            _ => return None,
        })
    }
    fn is_member(self) -> bool {
        self == JRule::member
    }
    fn describe(self) -> &'static str {
        match self {
            JRule::member | JRule::string => "string",
            JRule::EOI => "end of file",
            JRule::number => "number",
            _ => "value",
        }
    }
}

fn syntax_error<R: GrammarRule>(text: &str, e: pest::error::Error<R>) -> ParseError {
    let offset = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let found = match text[offset..].chars().next() {
        None => "end of file".to_string(),
        Some(c) if c.is_control() || c == ' ' => format!("{c:?}"),
        Some(c) => format!("'{c}'"),
    };
    let reason = match &e.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } if !positives.is_empty() => {
            let mut names: Vec<&str> = positives.iter().map(|r| r.describe()).collect();
            names.sort_unstable();
            names.dedup();
            format!("expected {}, found {found}", names.join(" or "))
        }
        _ => format!("unexpected {found}"),
    };
    ParseError::at(ErrorKind::Syntax(reason), text, offset)
}

struct Builder<'t> {
    text: &'t str,
    nodes: Vec<Node>,
    extras: Vec<Extra>,
}

impl<'t> Builder<'t> {
    fn new(text: &'t str) -> Self {
        // A rough guess that avoids most reallocation: one node per 12 bytes.
        Builder {
            text,
            nodes: Vec::with_capacity(text.len() / 12 + 1),
            extras: Vec::new(),
        }
    }

    fn push_value<R: GrammarRule>(
        &mut self,
        pair: Pair<'t, R>,
        key: Option<(u32, Quoting)>,
    ) -> Result<(), ParseError> {
        let rule = pair.as_rule();
        let tag = rule.tag().unwrap_or(Tag::Null);
        let span = pair.as_span();
        let extra = self.push_node(span.start(), span.end(), tag, key)?;
        let len = match tag {
            Tag::Array => {
                let mut n = 0;
                for child in pair.into_inner() {
                    self.push_value(child, None)?;
                    n += 1;
                }
                n
            }
            Tag::Object => self.push_members(pair.into_inner())?,
            Tag::Quoted => {
                self.check_escapes(span.as_str(), span.start())?;
                0
            }
            _ => 0,
        };
        if tag.is_container() {
            let extra = extra.expect("containers have an extra entry until closed");
            let end = span.end() as u32;
            doc::close(&mut self.nodes, &mut self.extras, extra, end, len);
        }
        Ok(())
    }

    /// Pushes a node (and a container entry for a container, whose index it returns).
    fn push_node(
        &mut self,
        start: usize,
        end: usize,
        tag: Tag,
        key: Option<(u32, Quoting)>,
    ) -> Result<Option<usize>, ParseError> {
        let (start32, end32) = (start as u32, end as u32);
        doc::push_node(&mut self.nodes, &mut self.extras, start32, end32, tag, key)
            .map_err(|_| ParseError::at(ErrorKind::TooLarge, self.text, start))
    }

    /// Pushes the members among `pairs` (repeated keys are kept: see
    /// [`Document::duplicate_keys`]).
    fn push_members<R: GrammarRule>(
        &mut self,
        pairs: impl Iterator<Item = Pair<'t, R>>,
    ) -> Result<u32, ParseError> {
        let mut n = 0;
        for member in pairs.filter(|p| p.as_rule().is_member()) {
            let mut inner = member.into_inner();
            let (Some(key), Some(value)) = (inner.next(), inner.next()) else {
                continue;
            };
            let q = match key.as_rule().tag() {
                Some(Tag::Raw) => Quoting::Raw,
                Some(Tag::Bare) => Quoting::Bare,
                _ => Quoting::Quoted,
            };
            let ks = key.as_span();
            debug_assert_eq!(
                crate::lexeme::key_end(self.text.as_bytes(), ks.start(), q),
                ks.end(),
                "the key's end is recomputed as the grammar reads it"
            );
            if q == Quoting::Quoted {
                self.check_escapes(ks.as_str(), ks.start())?;
            }
            self.push_value(value, Some((ks.start() as u32, q)))?;
            n += 1;
        }
        Ok(n)
    }

    fn check_escapes(&self, lexeme: &str, offset: usize) -> Result<(), ParseError> {
        crate::lexeme::check_escapes(self.text, lexeme, offset)
    }
}

fn build_sjson(text: &str) -> Result<(Builder<'_>, bool), ParseError> {
    let mut pairs = SjsonParser::parse(SRule::document, text).map_err(|e| syntax_error(text, e))?;
    let document = pairs.next().expect("the grammar yields one document pair");
    let mut b = Builder::new(text);
    let mut inner = document.into_inner().peekable();
    if inner.peek().map(|p| p.as_rule()) == Some(SRule::root_braced) {
        let root = inner.next().expect("peeked");
        b.push_value(root, None)?;
        return Ok((b, true));
    }
    let start = if text.starts_with('\u{FEFF}') { 3 } else { 0 };
    b.push_node(start, text.len(), Tag::Object, None)?;
    let len = b.push_members(inner)?;
    let end = text.len() as u32;
    doc::close(&mut b.nodes, &mut b.extras, 0, end, len);
    Ok((b, false))
}

fn build_json(text: &str) -> Result<Builder<'_>, ParseError> {
    let mut pairs = JsonParser::parse(JRule::document, text).map_err(|e| syntax_error(text, e))?;
    let document = pairs.next().expect("the grammar yields one document pair");
    let mut b = Builder::new(text);
    let value = document
        .into_inner()
        .find(|p| p.as_rule() != JRule::EOI)
        .expect("the grammar requires a value");
    b.push_value(value, None)?;
    Ok(b)
}
