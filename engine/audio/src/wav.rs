//! 16-bit stereo PCM WAV files at [`SAMPLE_RATE`]: written as a run goes, to listen to it
//! afterwards, and read back by tests.
//!
//! The layout is the plain 44-byte header every player reads: `RIFF` with the file's size less
//! 8, `WAVE`, a 16-byte `fmt ` chunk (PCM, 2 channels, 48 kHz, 4 bytes a frame, 16 bits), then
//! the `data` chunk with its size and the samples, little-endian, left before right.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use crate::{CHANNELS, SAMPLE_RATE};

/// Bits of a written sample.
const BITS: u16 = 16;
/// Bytes of a written frame.
const FRAME_BYTES: u32 = CHANNELS as u32 * BITS as u32 / 8;
/// Bytes before the samples.
const HEADER_BYTES: u32 = 44;
/// WAVE's format code for integer PCM.
const PCM: u16 = 1;
/// A sample of 1.0 is written as this.
const FULL_SCALE: f32 = 32767.0;

/// Writes interleaved stereo `f32` frames into a 16-bit PCM WAV file at [`SAMPLE_RATE`].
///
/// The sizes in the header are written by [`WavWriter::finish`]; a writer dropped without it
/// leaves a file whose header claims no samples.
#[derive(Debug)]
pub struct WavWriter {
    file: BufWriter<File>,
    data_bytes: u32,
}

impl WavWriter {
    /// Creates (or truncates) the file at `path` and writes its header.
    pub fn create(path: impl AsRef<Path>) -> io::Result<Self> {
        let mut file = BufWriter::new(File::create(path)?);
        file.write_all(&header(0))?;
        Ok(WavWriter {
            file,
            data_bytes: 0,
        })
    }

    /// Appends `samples`, interleaved stereo (left, right), so an even number of them: each is
    /// clamped to ±1 and scaled by 32767 to the nearest integer (a NaN is written as 0). An odd
    /// count, or more than a WAV file's 4 GiB holds, is refused with `InvalidInput` and nothing
    /// of it is written.
    pub fn write(&mut self, samples: &[f32]) -> io::Result<()> {
        if samples.len() % CHANNELS != 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "WAV samples come in stereo frames: {} samples is not a whole number of frames",
                    samples.len()
                ),
            ));
        }
        let bytes = u32::try_from(samples.len() * 2)
            .ok()
            .and_then(|bytes| self.data_bytes.checked_add(bytes))
            .filter(|total| total.checked_add(HEADER_BYTES - 8).is_some())
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "a WAV file holds at most 4 GiB of samples",
                )
            })?;
        for &sample in samples {
            let sample = if sample.is_nan() {
                0.0
            } else {
                sample.clamp(-1.0, 1.0)
            };
            let pcm = (sample * FULL_SCALE).round() as i16;
            self.file.write_all(&pcm.to_le_bytes())?;
        }
        self.data_bytes = bytes;
        Ok(())
    }

    /// Writes the RIFF and data sizes into the header and flushes the file: after this the
    /// file is a complete WAV file.
    pub fn finish(mut self) -> io::Result<()> {
        self.file.seek(SeekFrom::Start(0))?;
        self.file.write_all(&header(self.data_bytes))?;
        self.file.flush()?;
        self.file.get_ref().sync_all()
    }
}

/// The 44-byte header for `data_bytes` bytes of samples.
fn header(data_bytes: u32) -> [u8; HEADER_BYTES as usize] {
    let mut header = [0u8; HEADER_BYTES as usize];
    let fields: [&[u8]; 13] = [
        b"RIFF",
        &(HEADER_BYTES - 8 + data_bytes).to_le_bytes(),
        b"WAVE",
        b"fmt ",
        &16u32.to_le_bytes(),
        &PCM.to_le_bytes(),
        &(CHANNELS as u16).to_le_bytes(),
        &SAMPLE_RATE.to_le_bytes(),
        &(SAMPLE_RATE * FRAME_BYTES).to_le_bytes(),
        &(FRAME_BYTES as u16).to_le_bytes(),
        &BITS.to_le_bytes(),
        b"data",
        &data_bytes.to_le_bytes(),
    ];
    let mut at = 0;
    for field in fields {
        header[at..at + field.len()].copy_from_slice(field);
        at += field.len();
    }
    header
}

fn invalid(message: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message.into())
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// Reads a 16-bit stereo PCM WAV file (what [`WavWriter`] writes, at any sample rate): its
/// sample rate and its frames, each sample divided by 32767 (and −32768 read as −1).
///
/// Chunks other than `fmt ` and `data` are skipped. Anything else fails with `InvalidData` and
/// says what was found: not RIFF/WAVE, a format other than integer PCM, a channel count other
/// than 2, a sample size other than 16 bits, no `fmt ` or `data` chunk, a chunk running past
/// the end of the file, or a data chunk that is not whole frames.
pub fn read_wav(path: impl AsRef<Path>) -> io::Result<(u32, Vec<[f32; 2]>)> {
    let path = path.as_ref();
    let mut bytes = Vec::new();
    File::open(path)?.read_to_end(&mut bytes)?;
    let name = path.display();
    if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return Err(invalid(format!("{name}: not a RIFF/WAVE file")));
    }
    let mut rate = None;
    let mut data = None;
    let mut at = 12;
    while at + 8 <= bytes.len() {
        let id = &bytes[at..at + 4];
        let size = u32_at(&bytes, at + 4) as usize;
        let body = at + 8;
        let end = body
            .checked_add(size)
            .filter(|&end| end <= bytes.len())
            .ok_or_else(|| {
                invalid(format!(
                    "{name}: chunk {:?} of {size} bytes runs past the end of the file ({} bytes)",
                    String::from_utf8_lossy(id),
                    bytes.len()
                ))
            })?;
        match id {
            b"fmt " => {
                if size < 16 {
                    return Err(invalid(format!(
                        "{name}: fmt chunk of {size} bytes, not 16"
                    )));
                }
                let format = u16_at(&bytes, body);
                let channels = u16_at(&bytes, body + 2);
                let bits = u16_at(&bytes, body + 14);
                if format != PCM {
                    return Err(invalid(format!(
                        "{name}: format {format}, not integer PCM (1)"
                    )));
                }
                if channels != CHANNELS as u16 {
                    return Err(invalid(format!(
                        "{name}: {channels} channels, not stereo (2)"
                    )));
                }
                if bits != BITS {
                    return Err(invalid(format!("{name}: {bits}-bit samples, not 16-bit")));
                }
                rate = Some(u32_at(&bytes, body + 4));
            }
            b"data" => data = Some(&bytes[body..end]),
            _ => {}
        }
        // Chunks are padded to an even length.
        at = end + (size & 1);
    }
    let rate = rate.ok_or_else(|| invalid(format!("{name}: no fmt chunk")))?;
    let data = data.ok_or_else(|| invalid(format!("{name}: no data chunk")))?;
    if data.len() % FRAME_BYTES as usize != 0 {
        return Err(invalid(format!(
            "{name}: {} bytes of samples is not a whole number of 4-byte frames",
            data.len()
        )));
    }
    let sample = |bytes: &[u8]| (f32::from(u16_at(bytes, 0) as i16) / FULL_SCALE).max(-1.0);
    let frames = data
        .chunks_exact(FRAME_BYTES as usize)
        .map(|frame| [sample(&frame[0..2]), sample(&frame[2..4])])
        .collect();
    Ok((rate, frames))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_path(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("blockfall-audio-{}-{name}.wav", std::process::id()))
    }

    #[test]
    fn a_written_file_reads_back_within_one_step() {
        let path = temp_path("round-trip");
        let samples: Vec<f32> = (0..4800)
            .map(|i| (i as f32 * 0.013).sin() * 0.9 + if i % 2 == 0 { 0.05 } else { -0.05 })
            .chain([1.0, -1.0, 3.0, -7.0, f32::NAN, 0.5])
            .collect();
        let mut writer = WavWriter::create(&path).unwrap();
        writer.write(&samples[..1000]).unwrap();
        writer.write(&samples[1000..]).unwrap();
        writer.finish().unwrap();

        let (rate, frames) = read_wav(&path).unwrap();
        assert_eq!(rate, SAMPLE_RATE);
        assert_eq!(frames.len(), samples.len() / 2);
        for (i, frame) in frames.iter().enumerate() {
            for channel in 0..2 {
                let written = samples[2 * i + channel];
                let expected = if written.is_nan() {
                    0.0
                } else {
                    written.clamp(-1.0, 1.0)
                };
                let read = frame[channel];
                assert!(
                    (read - expected).abs() <= 1.0 / 32767.0,
                    "frame {i} channel {channel}: wrote {written}, read {read}"
                );
            }
        }
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn the_header_has_the_sizes_and_format() {
        let path = temp_path("header");
        let mut writer = WavWriter::create(&path).unwrap();
        writer.write(&[0.25; 200]).unwrap();
        // Half a frame is refused and leaves the file as it was.
        assert_eq!(
            writer.write(&[0.0; 3]).unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );
        writer.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len(), 44 + 400);
        assert_eq!(&bytes[0..4], b"RIFF");
        assert_eq!(u32_at(&bytes, 4), 36 + 400);
        assert_eq!(&bytes[8..16], b"WAVEfmt ");
        assert_eq!(u32_at(&bytes, 16), 16);
        assert_eq!(u16_at(&bytes, 20), 1, "PCM");
        assert_eq!(u16_at(&bytes, 22), 2, "channels");
        assert_eq!(u32_at(&bytes, 24), 48_000, "sample rate");
        assert_eq!(u32_at(&bytes, 28), 48_000 * 4, "byte rate");
        assert_eq!(u16_at(&bytes, 32), 4, "block align");
        assert_eq!(u16_at(&bytes, 34), 16, "bits");
        assert_eq!(&bytes[36..40], b"data");
        assert_eq!(u32_at(&bytes, 40), 400);
        assert_eq!(u16_at(&bytes, 44) as i16, 8192, "0.25 × 32767, rounded");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn other_files_are_refused_with_a_reason() {
        let path = temp_path("refused");
        let refusal = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            let error = read_wav(&path).unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::InvalidData);
            error.to_string()
        };
        assert!(refusal(b"OggS not a wave").contains("not a RIFF/WAVE"));
        let mono = {
            let mut bytes = header(4).to_vec();
            bytes[22] = 1;
            bytes.extend([0; 4]);
            bytes
        };
        assert!(refusal(&mono).contains("1 channels"));
        let eight_bit = {
            let mut bytes = header(4).to_vec();
            bytes[34] = 8;
            bytes.extend([0; 4]);
            bytes
        };
        assert!(refusal(&eight_bit).contains("8-bit"));
        let float = {
            let mut bytes = header(4).to_vec();
            bytes[20] = 3;
            bytes.extend([0; 4]);
            bytes
        };
        assert!(refusal(&float).contains("format 3"));
        // The header claims more samples than there are.
        let short = {
            let mut bytes = header(400).to_vec();
            bytes.extend([0; 4]);
            bytes
        };
        assert!(refusal(&short).contains("past the end"));
        let mut no_data = header(0).to_vec();
        no_data.truncate(36);
        assert!(refusal(&no_data).contains("no data chunk"));
        std::fs::remove_file(&path).unwrap();
    }
}
