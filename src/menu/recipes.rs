//! Vanilla's crafting recipes and how a grid matches one (`ShapedRecipe.matches`,
//! `ShapelessRecipe.matches`): a shaped recipe anywhere in the grid, as drawn or mirrored left
//! to right, with every other cell empty; a shapeless one when its ingredients and the grid's
//! items pair off one to one. The table is minecraft-data's (`recipe_data`).
//!
//! Not here: vanilla's special recipes, which compute their result (dyed armour, fireworks
//! with stars, map copies, banner patterns, repairing two worn tools).

use valence::prelude::*;

use super::recipe_data::{INGREDIENTS, SHAPED, SHAPELESS};
use crate::common::stacks::new_stack;

/// A recipe drawn on the grid: `cells` row by row, each an ingredient number (0 for empty).
pub(super) struct Shaped {
    pub width: u8,
    pub height: u8,
    pub cells: &'static [u16],
    pub result: u16,
    pub count: u8,
}

/// A recipe of ingredients in any cells.
pub(super) struct Shapeless {
    pub ingredients: &'static [u16],
    pub result: u16,
    pub count: u8,
}

/// Whether `item` fills a cell that asks for ingredient number `ingredient` (0: empty).
fn fills(ingredient: u16, item: Option<ItemKind>) -> bool {
    match (ingredient, item) {
        (0, None) => true,
        (0, Some(_)) | (_, None) => false,
        (i, Some(item)) => INGREDIENTS[i as usize - 1].contains(&item.to_raw()),
    }
}

/// What a square crafting grid of side `side` makes, `cells` row by row: the result stack.
pub fn craft(cells: &[Option<ItemKind>], side: usize) -> Option<ItemStack> {
    debug_assert_eq!(cells.len(), side * side);
    let filled: Vec<usize> = (0..cells.len()).filter(|&i| cells[i].is_some()).collect();
    let (first, last) = (*filled.first()?, *filled.last()?);
    // The smallest box round the filled cells: a shaped recipe must be exactly that size.
    let (top, bottom) = (first / side, last / side);
    let left = filled.iter().map(|i| i % side).min()?;
    let right = filled.iter().map(|i| i % side).max()?;
    let (width, height) = (right - left + 1, bottom - top + 1);
    let at = |x: usize, y: usize| cells[(top + y) * side + left + x];
    let shaped = SHAPED.iter().find(|r| {
        if (r.width as usize, r.height as usize) != (width, height) {
            return false;
        }
        let drawn = |mirror: bool| {
            (0..height).all(|y| {
                (0..width).all(|x| {
                    let rx = if mirror { width - 1 - x } else { x };
                    fills(r.cells[y * width + rx], at(x, y))
                })
            })
        };
        drawn(false) || drawn(true)
    });
    if let Some(r) = shaped {
        return Some(stack(r.result, r.count));
    }
    let items: Vec<ItemKind> = filled.iter().filter_map(|&i| cells[i]).collect();
    SHAPELESS
        .iter()
        .find(|r| r.ingredients.len() == items.len() && pairs_off(r.ingredients, &items))
        .map(|r| stack(r.result, r.count))
}

fn stack(result: u16, count: u8) -> ItemStack {
    let kind = ItemKind::from_raw(result).unwrap_or(ItemKind::Air);
    new_stack(kind, count, None)
}

/// Whether each item can be given an ingredient of its own (a matching found by trying each
/// free ingredient for the first item, then the rest; nine items at most).
fn pairs_off(ingredients: &[u16], items: &[ItemKind]) -> bool {
    fn go(ingredients: &[u16], items: &[ItemKind], used: &mut [bool]) -> bool {
        let Some((&item, rest)) = items.split_first() else {
            return true;
        };
        for (i, &ingredient) in ingredients.iter().enumerate() {
            if !used[i] && fills(ingredient, Some(item)) {
                used[i] = true;
                if go(ingredients, rest, used) {
                    return true;
                }
                used[i] = false;
            }
        }
        false
    }
    go(ingredients, items, &mut vec![false; ingredients.len()])
}

/// What an ingredient leaves in its cell when crafted with (`Item.craftingRemainingItem`):
/// buckets of milk, water and lava leave the bucket, honey and dragon's breath the bottle.
pub fn remainder(item: ItemKind) -> Option<ItemKind> {
    match item {
        ItemKind::MilkBucket | ItemKind::WaterBucket | ItemKind::LavaBucket => {
            Some(ItemKind::Bucket)
        }
        ItemKind::HoneyBottle | ItemKind::DragonBreath => Some(ItemKind::GlassBottle),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ItemKind::*;

    fn grid(cells: &[Option<ItemKind>]) -> Option<(ItemKind, u8)> {
        let side = if cells.len() == 4 { 2 } else { 3 };
        craft(cells, side).map(|s| (s.item, s.count()))
    }

    #[test]
    fn a_log_makes_four_planks_anywhere_in_the_grid() {
        assert_eq!(
            grid(&[Some(OakLog), None, None, None]),
            Some((OakPlanks, 4))
        );
        assert_eq!(
            grid(&[None, None, None, Some(BirchLog)]),
            Some((BirchPlanks, 4))
        );
        let mut nine = [None; 9];
        nine[4] = Some(SpruceLog);
        assert_eq!(grid(&nine), Some((SprucePlanks, 4)));
    }

    #[test]
    fn a_shaped_recipe_is_found_where_it_is_drawn_and_nowhere_else() {
        // Two planks stacked: four sticks, in either column of the 2x2 grid.
        assert_eq!(
            grid(&[Some(OakPlanks), None, Some(OakPlanks), None]),
            Some((Stick, 4))
        );
        assert_eq!(
            grid(&[None, Some(OakPlanks), None, Some(OakPlanks)]),
            Some((Stick, 4))
        );
        // Side by side is a pressure plate.
        assert_eq!(
            grid(&[Some(OakPlanks), Some(OakPlanks), None, None]),
            Some((OakPressurePlate, 1))
        );
        // A stray item anywhere spoils it.
        assert_eq!(
            grid(&[Some(OakPlanks), Some(Dirt), Some(OakPlanks), None]),
            None
        );
    }

    #[test]
    fn planks_of_several_woods_make_one_crafting_table_as_vanillas_tag_allows() {
        let table = [
            Some(OakPlanks),
            Some(SprucePlanks),
            Some(BirchPlanks),
            Some(OakPlanks),
        ];
        assert_eq!(grid(&table), Some((CraftingTable, 1)));
    }

    #[test]
    fn a_pickaxe_and_a_furnace_at_the_table() {
        let p = Some(OakPlanks);
        let s = Some(Stick);
        let pickaxe = grid(&[p, p, p, None, s, None, None, s, None]);
        assert_eq!(pickaxe, Some((WoodenPickaxe, 1)));
        let made = craft(&[p, p, p, None, s, None, None, s, None], 3).unwrap();
        assert!(
            made.nbt.unwrap().contains_key("Damage"),
            "a tool is made new"
        );
        let c = Some(Cobblestone);
        assert_eq!(grid(&[c, c, c, c, None, c, c, c, c]), Some((Furnace, 1)));
        // Cobbled deepslate and blackstone are the stone tool materials' tag too.
        let d = Some(CobbledDeepslate);
        assert_eq!(grid(&[c, d, c, c, None, c, c, c, c]), Some((Furnace, 1)));
    }

    #[test]
    fn a_shaped_recipe_also_matches_mirrored() {
        // An axe drawn with its head on the right: vanilla takes it mirrored.
        let (p, s) = (Some(OakPlanks), Some(Stick));
        assert_eq!(
            grid(&[p, p, None, p, s, None, None, s, None]),
            Some((WoodenAxe, 1))
        );
        assert_eq!(
            grid(&[None, p, p, None, s, p, None, s, None]),
            Some((WoodenAxe, 1))
        );
    }

    #[test]
    fn shapeless_ingredients_pair_off_in_any_cells() {
        // A book: three paper and a leather, anywhere.
        let (paper, leather) = (Some(Paper), Some(Leather));
        assert_eq!(
            grid(&[paper, None, leather, paper, None, None, None, paper, None]),
            Some((Book, 1))
        );
        // One paper short, or one too many: no book.
        assert_eq!(
            grid(&[paper, None, leather, paper, None, None, None, None, None]),
            None
        );
        assert_eq!(
            grid(&[paper, paper, leather, paper, paper, None, None, None, None]),
            None
        );
    }

    #[test]
    fn the_grid_of_nothing_or_of_junk_makes_nothing() {
        assert_eq!(grid(&[None; 4]), None);
        assert_eq!(grid(&[Some(Dirt), None, None, None]), None);
    }

    #[test]
    fn milk_leaves_its_buckets_in_the_grid() {
        assert_eq!(remainder(MilkBucket), Some(Bucket));
        assert_eq!(remainder(Wheat), None);
    }
}
