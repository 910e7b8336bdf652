//! Progress bars for long work over files (`check`, `fmt`): on stderr, only when stderr is
//! a terminal, in colour unless `NO_COLOR` is set.

use std::io::IsTerminal;

/// Fewer files than this finish before a bar would help; none is shown.
const MIN_FILES: usize = 64;

/// A bar over `files` files labelled `label` (`checking`), or `None` when stderr is not
/// a terminal or the work is short.
pub fn files_bar(label: &str, files: usize) -> Option<indicatif::ProgressBar> {
    if files < MIN_FILES || !std::io::stderr().is_terminal() {
        return None;
    }
    let colour = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let template = if colour {
        format!("assetvc: {label} {{bar:40.cyan/blue}} {{pos}}/{{len}} files {{elapsed_precise}}")
    } else {
        format!("assetvc: {label} [{{bar:40}}] {{pos}}/{{len}} files {{elapsed_precise}}")
    };
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(files as u64),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
        bar.set_style(style.progress_chars("=> "));
    }
    Some(bar)
}
