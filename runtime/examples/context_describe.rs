//! Prints each reader's text runs and their meet for the text on standard
//! input (for looking into a disagreement between readers).

use std::io::Read;

fn main() {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .expect("a UTF-8 text");
    print!("{}", agent_sentences_runtime::context::describe(&text));
}
