// expect: CK0024
kernel k(a: In<vec4>, r: Out<vec2>) {
    r = a.xg;
}
