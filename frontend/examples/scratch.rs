//! Scratch: parse a file, print it, dump it, render diagnostics.
fn main() {
    let path = std::env::args().nth(1).unwrap_or_default();
    let src = std::fs::read_to_string(&path).unwrap_or_default();
    let (file, diags) = ctm_frontend::parser::parse(&src);
    if let Some(f) = &file {
        println!("{}", ctm_frontend::print::print_file(f));
        if std::env::var("DUMP").is_ok() {
            println!("{}", ctm_frontend::print::dump_file(f, &src));
        }
    } else {
        println!("<no file>");
    }
    print!("{}", ctm_frontend::diag::render(&diags, &path, &src, false));
}
