// C = A * B for A of shape (m, k) and B of shape (k, n), both row-major
// streams; the domain is n columns by m rows.
kernel matmul(k: i32, a: In<f32>, b: In<f32>, c: Out<f32>) {
    let p = index();
    let mut acc = 0.0;
    for t in 0..k {
        let tf = t as f32;
        acc += a[vec2(tf, p.y)] * b[vec2(p.x, tf)];
    }
    c = acc;
}
