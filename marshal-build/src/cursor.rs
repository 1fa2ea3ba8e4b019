//! The token cursor both front ends' recursive-descent parsers stand on: looking ahead,
//! consuming expected punctuation and words, and errors that name what was expected at the
//! token where parsing stopped.

use crate::error::Pos;
use crate::lexer::{Diag, Tok, Token};

/// A position in a file's tokens.
pub(crate) struct Cursor<'t> {
    pub(crate) t: &'t [Token],
    pub(crate) i: usize,
}

impl<'t> Cursor<'t> {
    pub(crate) fn new(t: &'t [Token]) -> Cursor<'t> {
        Cursor { t, i: 0 }
    }

    pub(crate) fn peek(&self) -> Option<&Tok> {
        self.peek_at(0)
    }

    pub(crate) fn peek_at(&self, n: usize) -> Option<&Tok> {
        self.t.get(self.i + n).map(|t| &t.tok)
    }

    /// Where the next token is (just after the last one at the end).
    pub(crate) fn pos(&self) -> Pos {
        match self.t.get(self.i) {
            Some(t) => t.pos,
            None => match self.t.last() {
                // The token as displayed, less the backquotes around it.
                Some(t) => Pos {
                    col: t.pos.col + t.tok.to_string().chars().count() as u32 - 2,
                    ..t.pos
                },
                None => Pos::START,
            },
        }
    }

    pub(crate) fn err<T>(&self, expected: &str) -> Result<T, Diag> {
        let found = match self.peek() {
            Some(t) => t.to_string(),
            None => "the end of the file".to_string(),
        };
        Err(Diag::new(
            self.pos(),
            format!("expected {expected}, found {found}"),
        ))
    }

    pub(crate) fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    pub(crate) fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(s)) if s == w)
    }

    pub(crate) fn eat_punct(&mut self, c: char) -> bool {
        let yes = self.is_punct(c);
        self.i += usize::from(yes);
        yes
    }

    pub(crate) fn eat_word(&mut self, w: &str) -> bool {
        let yes = self.is_word(w);
        self.i += usize::from(yes);
        yes
    }

    pub(crate) fn punct(&mut self, c: char) -> Result<(), Diag> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            self.err(&format!("`{c}`"))
        }
    }

    pub(crate) fn word(&mut self, w: &str) -> Result<(), Diag> {
        if self.eat_word(w) {
            Ok(())
        } else {
            self.err(&format!("`{w}`"))
        }
    }
}

/// A parser that stands on a [`Cursor`]: `Deref` to it, so that its rules call the cursor's
/// methods and fields as their own.
macro_rules! on_cursor {
    ($parser:ident) => {
        impl<'t> core::ops::Deref for $parser<'t> {
            type Target = $crate::cursor::Cursor<'t>;
            fn deref(&self) -> &Self::Target {
                &self.c
            }
        }
        impl core::ops::DerefMut for $parser<'_> {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.c
            }
        }
    };
}
pub(crate) use on_cursor;
