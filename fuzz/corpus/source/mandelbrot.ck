// The Mandelbrot set: the escape time of z -> z^2 + c, scaled to [0, 1].
const MAX_ITER: i32 = 64;

kernel mandelbrot(center: vec2, scale: f32, r: Out<f32>) {
    let c = (index() - 0.5 * domain()) * scale + center;
    let mut z = vec2(0.0);
    let mut n = 0;
    for _k in 0..MAX_ITER {
        if dot(z, z) > 4.0 {
            break;
        }
        z = vec2(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y) + c;
        n += 1;
    }
    r = n as f32 / MAX_ITER as f32;
}
