// SAXPY: r = a * x + y, the "hello world" of stream computing.
kernel saxpy(a: f32, x: In<f32>, y: In<f32>, r: Out<f32>) {
    r = a * x + y;
}
