/// Escape-time Mandelbrot set over [-2, 1] x [-1.5, 1.5].
const MAX_ITER: i32 = 64;

kernel mandelbrot(scale: vec2, out: Out<f32>) {
    let c = index() / domain() * scale - vec2(2.0, 1.5);
    let mut z = vec2(0.0, 0.0);
    let mut n = 0;
    for k in 0..MAX_ITER {
        if dot(z, z) > 4.0 {
            break;
        }
        z = vec2(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c;
        n += 1;
    }
    out = n as f32 / MAX_ITER as f32;
}
