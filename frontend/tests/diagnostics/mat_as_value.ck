// expect: CK0029
kernel k(m: mat4, r: Out<vec4>) {
    let copy = m;
    r = vec4(0.0);
}
