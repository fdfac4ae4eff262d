use super::*;

/// `numpy.random.default_rng(42).bit_generator.state["state"]`.
fn numpy_seed_42() -> Pcg64 {
    Pcg64::new(
        0xcea4_4f67_9879_8f2a_acbc_7c9d_6886_0ac8,
        0xfa50_5436_c9a8_416e_66ca_f2e2_8d25_abff,
    )
}

#[test]
fn the_generator_gives_numpys_raw_numbers() {
    // default_rng(42).bit_generator.random_raw(3)
    let mut rng = numpy_seed_42();
    let raw: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
    assert_eq!(
        raw,
        [
            0xc621_fbcd_16d9_2688,
            0x705a_5661_a791_ffc1,
            0xdbcd_12c2_6eda_1624
        ]
    );
}

#[test]
fn the_generator_gives_numpys_doubles() {
    // default_rng(42).random(3)
    let mut rng = numpy_seed_42();
    let doubles: Vec<f64> = (0..3).map(|_| rng.next_f64()).collect();
    assert_eq!(
        doubles,
        [
            0.773_956_048_555_963_3,
            0.438_878_439_752_052_3,
            0.858_597_919_911_382_5
        ]
    );
}

#[test]
fn advancing_skips_exactly_that_many_numbers() {
    // default_rng(42); bit_generator.advance(1000); random_raw()
    let mut jumped = numpy_seed_42();
    jumped.advance(1000);
    assert_eq!(jumped.next_u64(), 0x0fe3_5e24_e0cd_297a);
    let mut stepped = numpy_seed_42();
    for _ in 0..1000 {
        stepped.next_u64();
    }
    assert_eq!(stepped, {
        let mut again = numpy_seed_42();
        again.advance(1000);
        again
    });
}

#[test]
fn two_systems_swap_when_the_double_is_below_one_half() {
    // One topic, two systems: the range is |x1 - x0| whatever the swap; a sum of two topics
    // shows the swaps. Topic 0: (0, 1); topic 1: (0, 10).
    let scores = [0.0, 1.0, 0.0, 10.0];
    let rounds = 40;
    let ranges = permuted_ranges(&scores, 2, 2, rounds, &numpy_seed_42()).unwrap();
    let mut rng = numpy_seed_42();
    for range in ranges {
        let first = if rng.next_f64() < 0.5 { -1.0 } else { 1.0 };
        let second = if rng.next_f64() < 0.5 { -10.0 } else { 10.0 };
        assert_eq!(range, f64::abs(first + second) / 2.0);
    }
}

#[test]
fn a_round_is_a_permutation_of_every_topic() {
    // Every system holds one 1 among zeros on its own topic; a permutation moves each 1 to
    // some system, so the sums always add up to the number of topics.
    let systems = 5;
    let mut scores = vec![0.0; systems * systems];
    for topic in 0..systems {
        scores[topic * systems + topic] = 1.0;
    }
    let mut rng = numpy_seed_42();
    let mut row = vec![0.0; systems];
    let mut sums = vec![0.0; systems];
    for _ in 0..200 {
        let range = round_range(&scores, systems, &mut rng, &mut row, &mut sums);
        assert_eq!(sums.iter().sum::<f64>(), 5.0);
        assert!((0.0..=1.0).contains(&range));
    }
}

#[test]
fn the_shuffle_is_uniform_over_permutations() {
    // 3 systems: each of the 6 orders about 1/6 of the time.
    let mut rng = numpy_seed_42();
    let mut counts = std::collections::HashMap::new();
    let draws = 60_000;
    for _ in 0..draws {
        let mut row = [0.0, 1.0, 2.0];
        shuffle(&mut row, &mut rng);
        *counts.entry(format!("{row:?}")).or_insert(0usize) += 1;
    }
    assert_eq!(counts.len(), 6);
    for count in counts.values() {
        assert!((9_500..=10_500).contains(count), "{counts:?}");
    }
}

#[test]
fn the_result_does_not_depend_on_the_threads() {
    let topics = 300;
    let systems = 4;
    #[allow(clippy::cast_precision_loss)]
    let scores: Vec<f64> = (0..topics * systems)
        .map(|i| ((i * 7919) % 101) as f64 / 100.0)
        .collect();
    let rounds = 1000;
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| permuted_ranges(&scores, topics, systems, rounds, &numpy_seed_42()).unwrap());
    let three = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap()
        .install(|| permuted_ranges(&scores, topics, systems, rounds, &numpy_seed_42()).unwrap());
    assert_eq!(one, three);
    // The first rounds are those of a shorter run: each round has its own stretch of the stream.
    let fewer = permuted_ranges(&scores, topics, systems, 37, &numpy_seed_42()).unwrap();
    assert_eq!(fewer[..], one[..37]);
}

#[test]
fn identical_systems_have_no_range() {
    let scores = [0.3, 0.3, 0.3, 0.7, 0.7, 0.7];
    let ranges = permuted_ranges(&scores, 2, 3, 10, &numpy_seed_42()).unwrap();
    assert!(ranges.iter().all(|&range| range == 0.0));
}

#[test]
fn bad_shapes_are_refused() {
    let rng = numpy_seed_42();
    assert_eq!(
        permuted_ranges(&[0.0; 5], 2, 3, 10, &rng),
        Err(ShapeError::Size {
            len: 5,
            topics: 2,
            systems: 3
        })
    );
    assert_eq!(
        permuted_ranges(&[0.0; 3], 3, 1, 10, &rng),
        Err(ShapeError::TooSmall {
            topics: 3,
            systems: 1
        })
    );
    assert_eq!(
        ShapeError::Size {
            len: 5,
            topics: 2,
            systems: 3
        }
        .to_string(),
        "a score matrix of 2 topics x 3 systems needs 6 scores, got 5"
    );
    assert!(permuted_ranges(&[], 0, 3, 10, &rng).is_err());
}
