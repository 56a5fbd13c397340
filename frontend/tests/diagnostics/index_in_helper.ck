// expect: CK0035
fn position() -> vec2 { index() }
kernel k(r: Out<vec2>) {
    r = position();
}
