//! Writing read-back pixels as PNG.

use std::path::Path;

use anyhow::Context as _;
use blockfall_engine::gpu::RgbaImage;
use blockfall_game::files::{self, write_atomically};

/// Checks, before any frame is rendered, that a PNG can be written at `path`
/// ([`files::check_writable`]): it names a file, nothing but a regular file (or a link to one)
/// is there, its folder is made (as [`write_png`] makes it) and a temporary file with a random
/// name is created in it exclusively (never through a link) and removed again. A bad path is
/// then refused at once rather than after every frame was rendered.
pub fn check_writable(path: &Path) -> anyhow::Result<()> {
    files::check_writable(path)
        .with_context(|| format!("cannot write the screenshot {}", path.display()))
}

/// Writes an RGBA image to `path` as an 8-bit sRGB PNG, creating its folder. The PNG is written
/// whole to a temporary file and renamed over `path`, so a failed write leaves no cut-off PNG.
pub fn write_png(image: &RgbaImage, path: &Path) -> anyhow::Result<()> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, image.width, image.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
    let encoded = (|| {
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&image.pixels)?;
        writer.finish()
    })();
    encoded.with_context(|| format!("encoding {}", path.display()))?;
    write_atomically(path, &bytes).with_context(|| format!("cannot write {}", path.display()))
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
        let decoder =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buffer).unwrap();
        assert_eq!((info.width, info.height), (3, 2));
        assert_eq!(&buffer[..info.buffer_size()], image.pixels.as_slice());
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn a_bad_screenshot_path_is_refused_before_rendering() {
        // Under a file no folder can be made; a folder is no file.
        let dir = std::env::temp_dir().join(format!("blockfall-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a-file");
        std::fs::write(&file, b"").unwrap();
        for bad in [file.join("shot.png"), dir.clone()] {
            let error = check_writable(&bad).unwrap_err();
            assert!(
                format!("{error:#}").contains("cannot write the screenshot"),
                "{error:#}"
            );
        }
        check_writable(&dir.join("deeper").join("shot.png")).unwrap();
        let left: Vec<_> = std::fs::read_dir(dir.join("deeper")).unwrap().collect();
        assert!(left.is_empty(), "the check leaves nothing behind");
        std::fs::remove_dir_all(dir).ok();
    }

    #[cfg(unix)]
    #[test]
    fn a_screenshot_over_a_fifo_or_through_a_planted_probe_link_is_refused_or_harmless() {
        let dir = std::env::temp_dir().join(format!("blockfall-probe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("shot.png");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let error = check_writable(&fifo).unwrap_err();
        assert!(format!("{error:#}").contains("FIFO"), "{error:#}");
        // The old probe's predictable name, planted as a link to a victim: left untouched.
        let victim = dir.join("victim");
        std::fs::write(&victim, b"keep me").unwrap();
        let planted = dir.join(format!(".blockfall-probe.{}.tmp", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        check_writable(&dir.join("other.png")).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");
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
