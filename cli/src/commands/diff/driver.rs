//! `assetvc diff-driver`: the external diff command git calls for assets.

use std::path::Path;

use crate::exit::Context;

use super::{dialect, header, is_binary, print_out, render_asset, settings};
use super::{DiffDriverArgs, Format, Paint, Status};
use crate::exit::Outcome;

/// Runs `assetvc diff-driver path old-file old-hex old-mode new-file new-hex new-mode`:
/// prints `diff --assetvc a/path b/path` and the changes; a side that does not parse is
/// shown as a line diff with the reason in one line, so that `git diff` and `git log -p`
/// go on to the next file. 0 on success, 2 if a file or the configuration cannot be read.
pub fn run_driver(args: &DiffDriverArgs) -> crate::exit::Result<Outcome> {
    let paint = Paint::for_git();
    let path = args.path.as_str();
    if args.rest.len() < 6 {
        // git calls an external diff with the path alone for an unmerged path.
        print_out(&format!(
            "{}\n{}\n",
            header(paint, path, path),
            paint.yellow("unmerged")
        ))?;
        return Ok(Outcome::Done);
    }
    let new_path = args.rest.get(6).map_or(path, String::as_str);
    let read = |f: &str| -> crate::exit::Result<Option<Vec<u8>>> {
        if f == "/dev/null" {
            return Ok(None);
        }
        Ok(Some(std::fs::read(f).with_context(|| f.to_string())?))
    };
    let (old, new) = (read(&args.rest[0])?, read(&args.rest[3])?);
    let (settings, matcher) = settings(Path::new("."))?;
    let mut text = header(paint, path, new_path);
    text.push('\n');
    if old == new {
        // git passes a rename (or a mode change) with identical content: say what it is.
        let what = if new_path != path {
            format!("renamed from {path}, content unchanged")
        } else {
            "content unchanged".to_string()
        };
        text.push_str(&paint.dim(&what));
        text.push('\n');
        print_out(&text)?;
        return Ok(Outcome::Done);
    }
    let binary = old.as_deref().is_some_and(is_binary) || new.as_deref().is_some_and(is_binary);
    if binary {
        text.push_str(&paint.dim(&format!(
            "binary file {}",
            Status::of(old.as_deref(), new.as_deref()).name()
        )));
        text.push('\n');
        print_out(&text)?;
        return Ok(Outcome::Done);
    }
    let rendered = render_asset(
        old.as_deref(),
        new.as_deref(),
        path,
        new_path,
        dialect(&matcher, new_path, new.as_deref().or(old.as_deref())),
        &settings,
        Format::Text,
        paint,
    );
    for l in rendered.lines {
        text.push_str(&l);
        text.push('\n');
    }
    print_out(&text)?;
    Ok(Outcome::Done)
}
