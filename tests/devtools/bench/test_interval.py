from devtools.bench.interval import coverage, median_interval, settled


def test_six_rounds_are_the_fewest_whose_span_holds_the_median_with_95_percent():
    assert median_interval([1.0, 0.9, 1.1, 0.95, 1.05]) is None  # five: min–max holds it only 93.75 % of the time
    six = median_interval([1.0, 0.9, 1.1, 0.95, 1.05, 0.97])
    assert (six.low, six.high, six.rounds) == (0.9, 1.1, 6) and six.coverage == 1 - 2 / 64


def test_more_rounds_narrow_the_interval_to_inner_order_statistics():
    # the refresh task's twelve rounds of 2026-11-26 18:31: the 3rd lowest and 3rd highest, 96.1 %
    rounds = [0.88, 0.94, 0.99, 1.06, 1.01, 1.10, 1.00, 0.77, 0.89, 1.05, 1.15, 1.00]
    found = median_interval(rounds)
    assert (found.low, found.high) == (0.89, 1.06) and round(found.coverage, 4) == 0.9614
    assert coverage(12, 4) < 0.95 <= coverage(12, 3)


def test_a_missing_measurement_is_left_out_not_counted_as_zero():
    assert median_interval([None, 1.0, 1.0, 1.0, 1.0, 1.0]) is None
    assert median_interval([None, 1.0, 1.0, 1.0, 1.0, 1.0, 1.2]).low == 1.0


def test_settled_needs_an_interval_and_a_narrow_one():
    assert not settled([1.0] * 5, width=0.1)  # no interval yet, however alike
    assert settled([1.0] * 6, width=0.1)
    assert not settled([0.8, 1.0, 1.0, 1.0, 1.0, 1.2], width=0.1)
