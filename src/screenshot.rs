//! Writing read-back pixels as PNG.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use anyhow::Context as _;
use blockfall_engine::gpu::RgbaImage;

/// Writes an RGBA image to `path` as an 8-bit sRGB PNG, creating its folder.
pub fn write_png(image: &RgbaImage, path: &Path) -> anyhow::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create the folder {}", parent.display()))?;
    }
    let file = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    let mut encoder = png::Encoder::new(BufWriter::new(file), image.width, image.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
    let mut writer = encoder
        .write_header()
        .with_context(|| format!("writing {}", path.display()))?;
    writer
        .write_image_data(&image.pixels)
        .with_context(|| format!("writing {}", path.display()))?;
    writer
        .finish()
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trips() {
        let image = RgbaImage {
            width: 3,
            height: 2,
            pixels: (0..24).map(|i| i * 10).collect(),
        };
        let dir = std::env::temp_dir().join(format!("blockfall-png-{}", std::process::id()));
        let path = dir.join("nested").join("shot.png");
        write_png(&image, &path).unwrap();
        let decoder = png::Decoder::new(std::io::BufReader::new(File::open(&path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buffer).unwrap();
        assert_eq!((info.width, info.height), (3, 2));
        assert_eq!(&buffer[..info.buffer_size()], image.pixels.as_slice());
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn unwritable_path_is_a_clear_error() {
        let image = RgbaImage {
            width: 1,
            height: 1,
            pixels: vec![0; 4],
        };
        let error = write_png(&image, Path::new("/proc/blockfall/shot.png")).unwrap_err();
        assert!(
            format!("{error:#}").contains("/proc/blockfall"),
            "{error:#}"
        );
    }
}
