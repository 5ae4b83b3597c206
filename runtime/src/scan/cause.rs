//! Why a candidate that some reader shows as text is not run (P172), as
//! data: what each reader shows where it starts. The walk decides from it;
//! the `hidden-by` message is written from it once the walk is done, and no
//! code reads a message back (P257).

use crate::context::{Context, Showing};

/// What the readers show where a `hidden-by` candidate starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Hidden {
    /// The reader whose reading the candidate was read in (an index into
    /// the readers), for a candidate; `None` for a disputed fence.
    pub reader: Option<usize>,
    /// What each reader shows there, in the readers' order.
    pub shows: Vec<Showing>,
}

impl Hidden {
    /// The cause at byte `at` of the text whose context is `ctx`.
    pub(super) fn at(ctx: &Context, at: usize, reader: Option<usize>) -> Hidden {
        Hidden {
            reader,
            shows: ctx.showing_at(at),
        }
    }

    /// Whether readers that show it as text place it in different blocks.
    pub(super) fn different_blocks(&self) -> bool {
        let mut blocks = self.shows.iter().filter_map(|s| match s {
            Showing::Text(block) => Some(block),
            _ => None,
        });
        let first = blocks.next();
        blocks.any(|b| Some(b) != first)
    }

    /// What the readers show, one entry per distinct reading, each named by
    /// the first reader that reads so: `pulldown-cmark: text; comrak:
    /// html_block`. A reader that reads as an earlier one adds nothing, so
    /// the text depends on the readings, not on how many readers there are.
    pub(super) fn readings(&self) -> String {
        let mut out = String::new();
        for (k, show) in self.shows.iter().enumerate() {
            if self.shows[..k].contains(show) {
                continue;
            }
            if !out.is_empty() {
                out.push_str("; ");
            }
            out.push_str(Context::reader_name(k));
            out.push_str(": ");
            out.push_str(show.name());
        }
        out
    }

    /// The message of a candidate of kind `kind` (`a call`, `a sentence`,
    /// `a broken candidate (…)`) with this cause.
    pub(super) fn message(&self, kind: &str) -> String {
        let Some(reader) = self.reader else {
            return format!(
                "the readers do not read the same directive fence here ({})",
                self.readings()
            );
        };
        let placed = if self.different_blocks() {
            ", which place it in different blocks"
        } else {
            ""
        };
        format!(
            "{kind} that {} shows as text, not every reader ({}){placed}",
            self.first_like(reader),
            self.readings()
        )
    }

    /// The first reader that reads as reader `k` does.
    fn first_like(&self, k: usize) -> &'static str {
        let first = self
            .shows
            .get(k)
            .and_then(|s| self.shows.iter().position(|t| t == s))
            .unwrap_or(k);
        Context::reader_name(first)
    }
}
