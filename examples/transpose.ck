// Transposes a square stream by scattering each element to its mirrored
// position (positions outside the domain would be dropped).
kernel transpose(src: In<f32>, dst: Scatter<f32>) {
    let p = index();
    dst[p.yx] = src;
}
