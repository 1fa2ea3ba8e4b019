//! Which conversions to compile under a code-size budget: a 0-1 knapsack, solved greedily as
//! Hoschka does ("Automatic generation of optimized code for marshalling routines",
//! section 4.1, after Martello & Toth, 1990), and then improved on.
//!
//! Each candidate is an [`Item`]: its profit is what compiled code saves over the interpreter
//! (the frequency times the saving per conversion, equation 5) and its weight the code it adds
//! (equation 6). [`greedy`] sorts the items by profit per unit of weight and takes each one
//! that still fits, going on past the first that does not ("fill-in", the paper's improvement
//! on stopping at the critical item). Hoschka stops there. Here the pass is repeated with each
//! of the [`SEEDS`] most profitable items taken first, the rest filled in by ratio the same
//! way, and the best of these solutions is kept: a big item worth more than the small ones
//! that crowd it out gets its chance with the room it leaves filled, where the textbook
//! safeguard (the single most profitable item alone) leaves that room empty. The result is at
//! least half the optimum: the items before the critical one plus the critical one are worth
//! at least the optimum (the LP bound), fill-in only adds, and the pass seeded with the most
//! profitable item is worth at least that item, which fits on its own (the critical one, or
//! one worth more).

/// One candidate for compilation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Item {
    /// What compiling it saves (say, expected conversions × time saved per conversion). Only
    /// finite, positive profits are ever taken.
    pub profit: f64,
    /// What compiling it costs in the budget's unit (say, bytes of code).
    pub weight: usize,
}

/// How many of the most profitable items [`greedy`] tries first.
pub const SEEDS: usize = 32;

/// The indices (ascending) of the items to take so that their weights add up to at most
/// `budget`: chosen greedily by profit per unit of weight with fill-in, once as it is and once
/// with each of the [`SEEDS`] most profitable items taken first, keeping the most profitable
/// solution (the plain pass on a tie). Items of weight 0 and positive profit are always taken;
/// items whose profit is not finite and positive never are. Ties go to the lower index, so
/// the answer depends only on the input.
pub fn greedy(items: &[Item], budget: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len())
        .filter(|&i| usable(&items[i], budget))
        .collect();
    // Weight 0 gives an infinite ratio: first, as it should.
    let ratio = |i: usize| items[i].profit / items[i].weight as f64;
    order.sort_by(|&a, &b| ratio(b).total_cmp(&ratio(a)).then(a.cmp(&b)));

    // One pass by ratio, with `first` taken before the others (it fits on its own).
    let pass = |first: Option<usize>| -> (f64, Vec<usize>) {
        let mut taken = Vec::new();
        let mut left = budget;
        let mut profit = 0.0;
        for i in first.into_iter().chain(order.iter().copied()) {
            if items[i].weight <= left && (first != Some(i) || taken.is_empty()) {
                left -= items[i].weight;
                profit += items[i].profit;
                taken.push(i);
            }
        }
        (profit, taken)
    };
    let (mut profit, mut taken) = pass(None);
    let mut seeds = order.clone();
    seeds.sort_by(|&a, &b| items[b].profit.total_cmp(&items[a].profit).then(a.cmp(&b)));
    seeds.truncate(SEEDS);
    for s in seeds {
        let (p, t) = pass(Some(s));
        if p > profit {
            (profit, taken) = (p, t);
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
        assert_eq!(greedy(&it, 30), vec![0, 1]);
        // Everything fits.
        assert_eq!(greedy(&it, 60), vec![0, 1, 2]);
        // Input order does not matter, only the ratio.
        let it = items(&[(120.0, 30), (60.0, 10), (100.0, 20)]);
        assert_eq!(greedy(&it, 30), vec![1, 2]);
        // With room for 50, the pass seeded with the most profitable item (then the first)
        // is worth 180, more than the plain pass's 160.
        assert_eq!(greedy(&it, 50), vec![0, 1]);
    }

    #[test]
    fn fill_in_goes_past_the_critical_item() {
        // Ratios 2, 1.17, 1: the second does not fit after the first, the third still does.
        let it = items(&[(10.0, 5), (7.0, 6), (2.0, 2)]);
        assert_eq!(greedy(&it, 10), vec![0, 2]);
        // A critical item worth more: seeded with it, the third fills its room (14 > 12).
        let it = items(&[(10.0, 5), (12.0, 8), (2.0, 2)]);
        assert_eq!(greedy(&it, 10), vec![1, 2]);
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
    fn seeded_passes_fill_the_room_a_big_item_leaves() {
        // By ratio: 1 and 2 (profit 11), then 0 does not fit. The big item alone is worth 10;
        // seeded with it, item 1 fills its room: 16, the optimum.
        let it = items(&[(10.0, 10), (6.0, 2), (5.0, 2)]);
        assert_eq!(greedy(&it, 12), vec![0, 1]);
        // The plain pass wins when it is worth more.
        let it = items(&[(10.0, 10), (6.0, 2), (5.5, 2)]);
        assert_eq!(greedy(&it, 13), vec![0, 1]);
        assert_eq!(greedy(&it, 4), vec![1, 2]);
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
