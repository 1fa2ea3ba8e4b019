//! Which conversions to compile under a code-size budget: a 0-1 knapsack, solved greedily as
//! Hoschka does ("Automatic generation of optimized code for marshalling routines",
//! section 4.1, after Martello & Toth, 1990).
//!
//! Each candidate is an [`Item`]: its profit is the time compiled code saves over the
//! interpreter (the estimated frequency times the saving per conversion, equation 5) and its
//! weight the code it adds (equation 6). [`greedy`] sorts the items by profit per unit of
//! weight, takes each one that still fits, going on past the first that does not ("fill-in",
//! the paper's improvement on stopping at the critical item), and finally keeps the single
//! most profitable item instead if that alone is worth more. That last step makes the result
//! at least half the optimum: the items before the critical one plus the critical one are
//! worth at least the optimum (the LP bound), fill-in only adds, and the critical item fits on
//! its own.

/// One candidate for compilation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Item {
    /// What compiling it saves (say, expected conversions × time saved per conversion). Only
    /// finite, positive profits are ever taken.
    pub profit: f64,
    /// What compiling it costs in the budget's unit (say, bytes of code).
    pub weight: usize,
}

/// The indices (ascending) of the items to take so that their weights add up to at most
/// `budget`, chosen greedily by profit per unit of weight with fill-in, or the single most
/// profitable item if that is worth more. Items of weight 0 and positive profit come first
/// and are always taken; items whose profit is not finite and positive never are. Ties go to
/// the lower index, so the answer depends only on the input.
pub fn greedy(items: &[Item], budget: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len())
        .filter(|&i| usable(&items[i], budget))
        .collect();
    // Weight 0 gives an infinite ratio: first, as it should.
    let ratio = |i: usize| items[i].profit / items[i].weight as f64;
    order.sort_by(|&a, &b| ratio(b).total_cmp(&ratio(a)).then(a.cmp(&b)));

    let mut taken = Vec::new();
    let mut left = budget;
    let mut profit = 0.0;
    for i in order {
        if items[i].weight <= left {
            left -= items[i].weight;
            profit += items[i].profit;
            taken.push(i);
        }
    }

    // The most profitable item that fits on its own, the first of equals.
    let best = (0..items.len())
        .filter(|&i| usable(&items[i], budget))
        .reduce(|a, b| {
            if items[b].profit > items[a].profit {
                b
            } else {
                a
            }
        });
    if let Some(b) = best {
        if items[b].profit > profit {
            return vec![b];
        }
    }
    taken.sort_unstable();
    taken
}

/// Whether `item` may be taken at all: a finite positive profit, and it fits an empty sack.
fn usable(item: &Item, budget: usize) -> bool {
    item.profit.is_finite() && item.profit > 0.0 && item.weight <= budget
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn items(list: &[(f64, usize)]) -> Vec<Item> {
        list.iter()
            .map(|&(profit, weight)| Item { profit, weight })
            .collect()
    }

    fn profit(items: &[Item], chosen: &[usize]) -> f64 {
        chosen.iter().map(|&i| items[i].profit).sum()
    }

    fn weight(items: &[Item], chosen: &[usize]) -> usize {
        chosen.iter().map(|&i| items[i].weight).sum()
    }

    #[test]
    fn nothing_to_choose() {
        assert!(greedy(&[], 10).is_empty());
        assert!(greedy(&items(&[(5.0, 3)]), 2).is_empty());
    }

    #[test]
    fn by_ratio() {
        // Ratios 6, 5, 4: the first two fit, the third does not.
        let it = items(&[(60.0, 10), (100.0, 20), (120.0, 30)]);
        assert_eq!(greedy(&it, 50), vec![0, 1]);
        // Everything fits.
        assert_eq!(greedy(&it, 60), vec![0, 1, 2]);
        // Input order does not matter, only the ratio.
        let it = items(&[(120.0, 30), (60.0, 10), (100.0, 20)]);
        assert_eq!(greedy(&it, 50), vec![1, 2]);
    }

    #[test]
    fn fill_in_goes_past_the_critical_item() {
        // Ratios 2, 1.5, 1: the second does not fit after the first, the third still does.
        let it = items(&[(10.0, 5), (12.0, 8), (2.0, 2)]);
        assert_eq!(greedy(&it, 10), vec![0, 2]);
    }

    #[test]
    fn single_item_fallback() {
        // Greedy takes the small item of ratio 2 (profit 2); the big one alone is worth 10.
        let it = items(&[(2.0, 1), (10.0, 10)]);
        assert_eq!(greedy(&it, 10), vec![1]);
        // With room for both, both.
        assert_eq!(greedy(&it, 11), vec![0, 1]);
        // On a tie the greedy set stays.
        let it = items(&[(10.0, 1), (10.0, 10)]);
        assert_eq!(greedy(&it, 10), vec![0]);
    }

    #[test]
    fn weight_zero_first() {
        let it = items(&[(3.0, 1), (0.5, 0), (1.0, 0)]);
        assert_eq!(greedy(&it, 0), vec![1, 2]);
        assert_eq!(greedy(&it, 1), vec![0, 1, 2]);
        // Even an enormous item cannot push out the free ones: it does not fit.
        let it = items(&[(1e9, 5), (1.0, 0)]);
        assert_eq!(greedy(&it, 4), vec![1]);
        // But a single item worth more than all the free ones together replaces them.
        assert_eq!(greedy(&it, 5), vec![0, 1]);
    }

    #[test]
    fn worthless_items_are_never_taken() {
        let it = items(&[
            (0.0, 0),
            (-1.0, 0),
            (f64::NAN, 0),
            (f64::INFINITY, 0),
            (f64::NEG_INFINITY, 1),
            (-0.0, 1),
            (1.0, 1),
        ]);
        assert_eq!(greedy(&it, 100), vec![6]);
        assert!(greedy(&it[..6], 100).is_empty());
    }

    #[test]
    fn ties_go_to_the_lower_index() {
        let it = items(&[(4.0, 2), (4.0, 2), (4.0, 2)]);
        assert_eq!(greedy(&it, 4), vec![0, 1]);
        assert_eq!(greedy(&it, 3), vec![0]);
        // Equal ratios, different sizes: index order, not size (smallest first would take
        // items 1 and 2, worth 2).
        let it = items(&[(2.0, 2), (1.0, 1), (1.0, 1)]);
        assert_eq!(greedy(&it, 3), vec![0, 1]);
    }

    #[test]
    fn huge_weights_and_budgets() {
        let it = items(&[(1.0, usize::MAX), (1.0, usize::MAX - 1), (1.0, 1)]);
        // The small item first, then the first big one that still fits.
        assert_eq!(greedy(&it, usize::MAX), vec![1, 2]);
        assert_eq!(greedy(&it, usize::MAX - 1), vec![2]);
        let it = items(&[(f64::MAX, 1), (f64::MAX, 1), (1.0, 1)]);
        assert_eq!(greedy(&it, 3), vec![0, 1, 2]);
    }

    /// xorshift64: deterministic, no dependency (the JIT's tests share it).
    pub(crate) struct Rng(pub(crate) u64);
    impl Rng {
        pub(crate) fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        pub(crate) fn below(&mut self, n: u64) -> usize {
            (self.next() % n) as usize
        }
    }

    /// The best profit over every subset that fits.
    fn optimum(items: &[Item], budget: usize) -> f64 {
        let mut best = 0.0_f64;
        for set in 0u32..1 << items.len() {
            let chosen: Vec<usize> = (0..items.len()).filter(|&i| set >> i & 1 == 1).collect();
            if weight(items, &chosen) <= budget {
                best = best.max(profit(items, &chosen));
            }
        }
        best
    }

    #[test]
    fn at_least_half_the_optimum() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut below_optimum = 0;
        for _ in 0..4000 {
            let n = rng.below(11);
            let it: Vec<Item> = (0..n)
                .map(|_| Item {
                    // Mostly positive, some zero or negative.
                    profit: rng.below(1200) as f64 / 100.0 - 2.0,
                    weight: rng.below(21),
                })
                .collect();
            let budget = rng.below(41);
            let chosen = greedy(&it, budget);
            assert!(chosen.windows(2).all(|w| w[0] < w[1]), "{chosen:?}");
            assert!(chosen.iter().all(|&i| i < n && it[i].profit > 0.0));
            assert!(weight(&it, &chosen) <= budget, "{it:?} {budget} {chosen:?}");
            let (got, best) = (profit(&it, &chosen), optimum(&it, budget));
            assert!(
                got >= best / 2.0 - 1e-9,
                "{got} < {best}/2: {it:?} {budget}"
            );
            assert!(got <= best + 1e-9);
            if got < best - 1e-9 {
                below_optimum += 1;
            }
            assert_eq!(greedy(&it, budget), chosen);
        }
        // The test instances do exercise the approximation.
        assert!(below_optimum > 0);
    }

    #[test]
    fn the_classic_bad_case_for_plain_greedy() {
        // Plain greedy takes the tiny item of best ratio and then nothing fits: profit 2 of
        // an optimum of `budget`. The single-item step saves it.
        let budget = 1000;
        let it = items(&[(2.0, 1), (budget as f64, budget)]);
        assert_eq!(greedy(&it, budget), vec![1]);
    }
}
