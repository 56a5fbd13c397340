// expect: CK0047
kernel k(a: In<f32>, s: Scatter<f32>) {
    s[1.0] = a;
}
