// expect: CK0045
kernel k(a: In<vec4>, r: Out<vec4>) {
    r = vec4(cross(a, a), 0.0);
}
