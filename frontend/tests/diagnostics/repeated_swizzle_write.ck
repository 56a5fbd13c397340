// expect: CK0025
kernel k(a: In<vec4>, r: Out<vec4>) {
    let mut v = a;
    v.xx = vec2(1.0, 2.0);
    r = v;
}
