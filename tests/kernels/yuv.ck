// RGB to YUV (BT.601).
kernel yuv(rgb: In<vec4>, r: Out<vec4>) {
    let c = rgb.rgb;
    let y = dot(c, vec3(0.299, 0.587, 0.114));
    let u = (c.b - y) * 0.492;
    let v = (c.r - y) * 0.877;
    r = vec4(y, u, v, 1.0);
}
