// Sepia tone.
kernel sepia(img: In<unorm8x4>, r: Out<vec4>) {
    let c = img.rgb;
    let o = vec3(dot(c, vec3(0.393, 0.769, 0.189)), dot(c, vec3(0.349, 0.686, 0.168)), dot(c, vec3(0.272, 0.534, 0.131)));
    r = vec4(min(o, vec3(1.0)), img.a);
}
