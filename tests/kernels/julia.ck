// Julia set escape count.
kernel julia(c: vec2, scale: f32, r: Out<f32>) {
    let mut z = (index() - domain() * 0.5) * scale;
    let mut n = 0.0;
    for k in 0..100 {
        if dot(z, z) >= 4.0 {
            break;
        }
        z = vec2(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c;
        n += 1.0;
    }
    r = n;
}
