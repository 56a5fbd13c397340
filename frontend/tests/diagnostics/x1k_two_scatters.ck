// target: x1k
// expect: CK0062
kernel k(a: In<f32>, s: Scatter<f32>, t: Scatter<f32>) {
    s[index()] = a;
    t[index()] = a;
}
