// expect: CK0023
kernel k(a: In<vec4>, b: In<vec2>, r: Out<vec4>) {
    r = a + b;
}
