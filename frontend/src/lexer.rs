//! The lexer: source text to tokens with spans (spec §1).
