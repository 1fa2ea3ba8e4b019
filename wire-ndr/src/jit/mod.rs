pub mod frequency;
pub mod knapsack;
