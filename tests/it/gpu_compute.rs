//! Compute on the GPU: a dispatch fills a storage buffer and counts with an atomic; the result
//! must equal the same computation on the CPU, bit for bit.

use crate::common;

use common::{fill_count, hash};

#[test]
fn dispatch_fills_a_buffer_and_counts_like_the_cpu() {
    // Not a multiple of the workgroup size: the tail invocations must do nothing.
    let count = 100_003;
    let divisor = 7;
    let Some(gpu) = common::gpu() else {
        return;
    };
    let (values, multiples) = fill_count(&gpu, count, divisor);
    let expected: Vec<u32> = (0..count).map(hash).collect();
    assert_eq!(values.len(), expected.len());
    let first_wrong = values.iter().zip(&expected).position(|(a, b)| a != b);
    assert_eq!(first_wrong, None, "GPU and CPU hashes differ");
    let expected_multiples = expected.iter().filter(|v| *v % divisor == 0).count() as u32;
    assert_eq!(multiples, expected_multiples);
    assert!(multiples > 0);
}

#[test]
fn atomics_count_every_invocation_when_all_match() {
    let count = 4096 + 5;
    let Some(gpu) = common::gpu() else {
        return;
    };
    let (values, multiples) = fill_count(&gpu, count, 1);
    assert_eq!(multiples, count, "every value is a multiple of 1");
    assert_eq!(values[4096], hash(4096));
}
