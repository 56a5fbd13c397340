// expect: CK0064
kernel k(a: [vec4; 200], b: [vec4; 100], r: Out<vec4>) {
    r = a[0] + b[0];
}
