// target: x1k
// expect: CK0061
kernel k(a: In<f32>, s: Scatter<f32>, r: Out<f32>) {
    s[index()] = a;
    r = a;
}
