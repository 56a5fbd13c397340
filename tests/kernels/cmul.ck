// Complex product of two streams of complex numbers.
kernel cmul(a: In<vec2>, b: In<vec2>, r: Out<vec2>) {
    r = vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
