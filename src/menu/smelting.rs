//! Vanilla 1.20.1's furnaces as rules: what each kind smelts and in how long, what burns and
//! for how long, and one tick of a furnace (`AbstractFurnaceBlockEntity.serverTick`).
//!
//! minecraft-data has no smelting recipes or fuel times, so they are written out here from the
//! game's data (`data/minecraft/recipes/*_from_smelting.json`, `*_from_blasting.json`,
//! `*_from_smoking.json`; `AbstractFurnaceBlockEntity.getFuel`), as the Minecraft wiki lists
//! them (Smelting, Fuel).

use valence::prelude::*;

/// A kind of furnace: which recipes it takes and how fast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Oven {
    Furnace,
    Smoker,
    BlastFurnace,
}

impl Oven {
    pub fn of(kind: BlockKind) -> Option<Self> {
        match kind {
            BlockKind::Furnace => Some(Self::Furnace),
            BlockKind::Smoker => Some(Self::Smoker),
            BlockKind::BlastFurnace => Some(Self::BlastFurnace),
            _ => None,
        }
    }

    /// The block entity's id.
    pub fn id(self) -> &'static str {
        match self {
            Self::Furnace => "furnace",
            Self::Smoker => "smoker",
            Self::BlastFurnace => "blast_furnace",
        }
    }
}

/// What `item` smelts into in `oven`: the result, the cooking ticks and the experience a
/// result is worth. A furnace cooks everything in 200 ticks; a smoker food and a blast furnace
/// ores and metal gear, twice as fast.
pub fn smelts(oven: Oven, item: ItemKind) -> Option<(ItemKind, u16, f32)> {
    let (result, xp, class) = recipe(item)?;
    match (oven, class) {
        (Oven::Furnace, _) => Some((result, 200, xp)),
        (Oven::Smoker, Class::Food) | (Oven::BlastFurnace, Class::Ore) => Some((result, 100, xp)),
        _ => None,
    }
}

/// Which fast oven also takes a recipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Food,
    Ore,
    Other,
}

fn recipe(item: ItemKind) -> Option<(ItemKind, f32, Class)> {
    use ItemKind::*;
    let name = item.to_str();
    let ore = |result, xp| Some((result, xp, Class::Ore));
    let food = |result| Some((result, 0.35, Class::Food));
    let other = |result, xp| Some((result, xp, Class::Other));
    match item {
        IronOre | DeepslateIronOre | RawIron => ore(IronIngot, 0.7),
        GoldOre | DeepslateGoldOre | NetherGoldOre | RawGold => ore(GoldIngot, 1.0),
        CopperOre | DeepslateCopperOre | RawCopper => ore(CopperIngot, 0.7),
        CoalOre | DeepslateCoalOre => ore(Coal, 0.1),
        DiamondOre | DeepslateDiamondOre => ore(Diamond, 1.0),
        EmeraldOre | DeepslateEmeraldOre => ore(Emerald, 1.0),
        LapisOre | DeepslateLapisOre => ore(LapisLazuli, 0.2),
        RedstoneOre | DeepslateRedstoneOre => ore(Redstone, 0.7),
        NetherQuartzOre => ore(Quartz, 0.2),
        AncientDebris => ore(NetheriteScrap, 2.0),
        IronSword | IronPickaxe | IronAxe | IronShovel | IronHoe | IronHelmet | IronChestplate
        | IronLeggings | IronBoots | IronHorseArmor | ChainmailHelmet | ChainmailChestplate
        | ChainmailLeggings | ChainmailBoots => ore(IronNugget, 0.1),
        GoldenSword | GoldenPickaxe | GoldenAxe | GoldenShovel | GoldenHoe | GoldenHelmet
        | GoldenChestplate | GoldenLeggings | GoldenBoots | GoldenHorseArmor => {
            ore(GoldNugget, 0.1)
        }
        Beef => food(CookedBeef),
        Porkchop => food(CookedPorkchop),
        Chicken => food(CookedChicken),
        Cod => food(CookedCod),
        Salmon => food(CookedSalmon),
        Mutton => food(CookedMutton),
        Rabbit => food(CookedRabbit),
        Potato => food(BakedPotato),
        Kelp => Some((DriedKelp, 0.1, Class::Food)),
        Sand | RedSand => other(Glass, 0.1),
        Cobblestone => other(Stone, 0.1),
        Stone => other(SmoothStone, 0.1),
        CobbledDeepslate => other(Deepslate, 0.1),
        ClayBall => other(Brick, 0.3),
        Clay => other(Terracotta, 0.35),
        Netherrack => other(NetherBrick, 0.1),
        Sandstone => other(SmoothSandstone, 0.1),
        RedSandstone => other(SmoothRedSandstone, 0.1),
        QuartzBlock => other(SmoothQuartz, 0.1),
        StoneBricks => other(CrackedStoneBricks, 0.1),
        NetherBricks => other(CrackedNetherBricks, 0.1),
        DeepslateBricks => other(CrackedDeepslateBricks, 0.1),
        DeepslateTiles => other(CrackedDeepslateTiles, 0.1),
        PolishedBlackstoneBricks => other(CrackedPolishedBlackstoneBricks, 0.1),
        Basalt => other(SmoothBasalt, 0.1),
        WetSponge => other(Sponge, 0.15),
        Cactus => other(GreenDye, 1.0),
        SeaPickle => other(LimeDye, 0.1),
        ChorusFruit => other(PoppedChorusFruit, 0.1),
        // Every log and wood of the overworld's trees (`#logs_that_burn`): charcoal.
        _ if (name.ends_with("_log") || name.ends_with("_wood"))
            && !name.contains("crimson")
            && !name.contains("warped") =>
        {
            other(Charcoal, 0.15)
        }
        // Each coloured terracotta: its glazed terracotta.
        _ if name.ends_with("_terracotta") && !name.ends_with("glazed_terracotta") => {
            let glazed = format!("{}_glazed_terracotta", name.trim_end_matches("_terracotta"));
            ItemKind::from_str(&glazed).and_then(|g| other(g, 0.1))
        }
        _ => None,
    }
}

/// How long `item` burns as fuel, in ticks (`AbstractFurnaceBlockEntity.getFuel`); 0 for what
/// does not burn.
pub fn burn_ticks(item: ItemKind) -> u16 {
    use ItemKind::*;
    let name = item.to_str();
    let wooden = |suffix: &str| name.ends_with(suffix) && !is_nether_wood(name);
    match item {
        LavaBucket => 20000,
        CoalBlock => 16000,
        DriedKelpBlock => 4001,
        BlazeRod => 2400,
        Coal | Charcoal => 1600,
        Bamboo | Scaffolding => 50,
        Stick => 100,
        Bowl => 100,
        CraftingTable | Bookshelf | ChiseledBookshelf | Lectern | Jukebox | NoteBlock | Chest
        | TrappedChest | Barrel | Composter | Loom | CartographyTable | FletchingTable
        | SmithingTable | DaylightDetector | BambooMosaic | BambooBlock | StrippedBambooBlock => {
            300
        }
        Bow | FishingRod | Ladder | Crossbow => 300,
        WoodenSword | WoodenPickaxe | WoodenAxe | WoodenShovel | WoodenHoe => 200,
        _ if name.ends_with("_sign")
            && !name.ends_with("hanging_sign")
            && !is_nether_wood(name) =>
        {
            200
        }
        _ if name.ends_with("_hanging_sign") && !is_nether_wood(name) => 800,
        _ if name.ends_with("_boat") || name.ends_with("_raft") => 1200,
        _ if name.ends_with("_wool") => 100,
        _ if name.ends_with("_carpet") => 67,
        _ if name.ends_with("_banner") => 300,
        _ if name.ends_with("_sapling") || name.ends_with("_propagule") || item == AzaleaLeaves => {
            100
        }
        _ if name.ends_with("_button")
            && wooden("_button")
            && item != StoneButton
            && item != PolishedBlackstoneButton =>
        {
            100
        }
        _ if wooden("_log") || wooden("_wood") || wooden("_planks") || wooden("_stem") => 300,
        _ if wooden("_slab") && is_wooden_set(name) => 150,
        _ if (wooden("_stairs")
            || wooden("_pressure_plate")
            || wooden("_fence")
            || wooden("_fence_gate")
            || wooden("_trapdoor"))
            && is_wooden_set(name) =>
        {
            300
        }
        _ if wooden("_door") && is_wooden_set(name) => 200,
        _ => 0,
    }
}

/// Crimson and warped wood never burn.
fn is_nether_wood(name: &str) -> bool {
    name.contains("crimson") || name.contains("warped")
}

/// Whether `name` is one of the overworld's wood sets (oak stairs, not stone stairs).
fn is_wooden_set(name: &str) -> bool {
    [
        "oak_",
        "spruce_",
        "birch_",
        "jungle_",
        "acacia_",
        "dark_oak_",
        "mangrove_",
        "cherry_",
        "bamboo_",
    ]
    .iter()
    .any(|wood| name.starts_with(wood))
}

/// A furnace's fire and progress (its block entity's `BurnTime`, `CookTime`,
/// `CookTimeTotal`; the fuel's whole burn time is not saved and comes back from the fuel in
/// the slot, as in vanilla).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fire {
    /// Ticks the fire still burns.
    pub burning: u16,
    /// Ticks the fuel that lit it burns in all.
    pub fuel_ticks: u16,
    pub progress: u16,
    pub total: u16,
}

impl Fire {
    pub fn lit(&self) -> bool {
        self.burning > 0
    }
}

/// What one tick did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Ticked {
    /// The slots or the fire changed: keep them.
    pub changed: bool,
    /// Experience the result made this tick is worth.
    pub experience: f32,
}

fn room_for(result: ItemKind, output: Option<&ItemStack>) -> bool {
    match output {
        None => true,
        Some(out) => out.item == result && out.nbt.is_none() && out.count() < out.item.max_stack(),
    }
}

/// The whole points `owed` pays when the output is taken: its whole part, and one more with
/// the chance of its fraction (`AbstractFurnaceBlockEntity.createExperience`).
pub fn payout(owed: f32, rng: &mut impl rand::Rng) -> u32 {
    let whole = owed.floor();
    whole as u32 + u32::from(rng.gen::<f32>() < owed - whole)
}

/// One tick of `oven` with `slots` (input, fuel, output), as vanilla's `serverTick`: the fire
/// burns down; with something to smelt that has room, fresh fuel is lit (a lava bucket leaves
/// its bucket); while lit, the progress rises and a finished item moves to the output; unlit,
/// the progress falls back two a tick.
pub fn tick(oven: Oven, fire: &mut Fire, slots: &mut [Option<ItemStack>; 3]) -> Ticked {
    let mut out = Ticked::default();
    let was_lit = fire.lit();
    if fire.lit() {
        fire.burning -= 1;
    }
    let recipe = slots[0].as_ref().and_then(|s| smelts(oven, s.item));
    let can = recipe.is_some_and(|(result, ..)| room_for(result, slots[2].as_ref()));
    let fuel = slots[1].as_ref().map(|s| s.item);
    if fire.lit() || (fuel.is_some() && slots[0].is_some()) {
        if !fire.lit() && can {
            let ticks = fuel.map_or(0, burn_ticks);
            fire.burning = ticks;
            fire.fuel_ticks = ticks;
            if fire.lit() {
                out.changed = true;
                let fuel_item = fuel.unwrap_or(ItemKind::Air);
                let left = slots[1].as_ref().map_or(0, |s| s.count()) - 1;
                slots[1] = if left > 0 {
                    slots[1].take().map(|s| s.with_count(left))
                } else if fuel_item == ItemKind::LavaBucket {
                    Some(ItemStack::new(ItemKind::Bucket, 1, None))
                } else {
                    None
                };
            }
        }
        match recipe {
            Some((result, cook, xp)) if fire.lit() && can => {
                fire.total = cook;
                fire.progress += 1;
                if fire.progress >= fire.total {
                    fire.progress = 0;
                    slots[2] = Some(match slots[2].take() {
                        Some(o) => {
                            let n = o.count() + 1;
                            o.with_count(n)
                        }
                        None => ItemStack::new(result, 1, None),
                    });
                    let left = slots[0].as_ref().map_or(0, |s| s.count()) - 1;
                    slots[0] = if left > 0 {
                        slots[0].take().map(|s| s.with_count(left))
                    } else {
                        None
                    };
                    out.experience += xp;
                    out.changed = true;
                }
            }
            _ => fire.progress = 0,
        }
    } else if fire.progress > 0 {
        fire.progress = fire.progress.saturating_sub(2);
    }
    if was_lit != fire.lit() {
        out.changed = true;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ItemKind::*;

    #[test]
    fn the_experience_owed_is_paid_whole_and_its_fraction_by_chance() {
        let mut rng = crate::random::generator(7);
        assert_eq!(payout(2.0, &mut rng), 2);
        assert_eq!(payout(0.0, &mut rng), 0);
        // Two iron ingots owe 1.4: one point, and a second four times in ten.
        let seconds = (0..10_000).filter(|_| payout(1.4, &mut rng) == 2).count();
        assert!((3_700..4_300).contains(&seconds), "{seconds}");
    }

    fn slots(
        input: Option<(ItemKind, u8)>,
        fuel: Option<(ItemKind, u8)>,
    ) -> [Option<ItemStack>; 3] {
        let s = |x: Option<(ItemKind, u8)>| x.map(|(i, n)| ItemStack::new(i, n, None));
        [s(input), s(fuel), None]
    }

    #[test]
    fn raw_iron_smelts_in_ten_seconds_and_coal_lasts_eight_items() {
        let mut fire = Fire::default();
        let mut s = slots(Some((RawIron, 9)), Some((Coal, 1)));
        let mut xp = 0.0;
        for _ in 0..200 {
            xp += tick(Oven::Furnace, &mut fire, &mut s).experience;
        }
        assert_eq!(
            s[2].as_ref().map(|o| (o.item, o.count())),
            Some((IronIngot, 1))
        );
        assert_eq!(s[1], None, "the coal was burnt");
        for _ in 0..1401 {
            xp += tick(Oven::Furnace, &mut fire, &mut s).experience;
        }
        assert_eq!(
            s[2].as_ref().map(|o| o.count()),
            Some(8),
            "a coal smelts eight"
        );
        assert!(!fire.lit());
        assert_eq!(s[0].as_ref().map(|i| i.count()), Some(1));
        assert!((xp - 8.0 * 0.7).abs() < 1e-4);
    }

    #[test]
    fn fast_ovens_take_only_their_own_and_cook_twice_as_fast() {
        assert_eq!(smelts(Oven::Smoker, Beef), Some((CookedBeef, 100, 0.35)));
        assert_eq!(smelts(Oven::Smoker, RawIron), None);
        assert_eq!(
            smelts(Oven::BlastFurnace, RawGold),
            Some((GoldIngot, 100, 1.0))
        );
        assert_eq!(smelts(Oven::BlastFurnace, Sand), None);
        assert_eq!(smelts(Oven::Furnace, OakLog), Some((Charcoal, 200, 0.15)));
        assert_eq!(smelts(Oven::Furnace, CrimsonStem), None);
        assert_eq!(
            smelts(Oven::Furnace, RedTerracotta).map(|r| r.0),
            Some(RedGlazedTerracotta)
        );
    }

    #[test]
    fn fuels_burn_as_long_as_vanillas() {
        assert_eq!(burn_ticks(Coal), 1600);
        assert_eq!(burn_ticks(OakPlanks), 300);
        assert_eq!(burn_ticks(OakSlab), 150);
        assert_eq!(burn_ticks(Stick), 100);
        assert_eq!(burn_ticks(LavaBucket), 20000);
        assert_eq!(burn_ticks(WoodenPickaxe), 200);
        assert_eq!(burn_ticks(CrimsonPlanks), 0);
        assert_eq!(burn_ticks(StoneSlab), 0);
        assert_eq!(burn_ticks(Cobblestone), 0);
    }

    #[test]
    fn nothing_burns_without_something_to_smelt_and_progress_falls_back_unlit() {
        let mut fire = Fire::default();
        let mut s = slots(None, Some((Coal, 1)));
        tick(Oven::Furnace, &mut fire, &mut s);
        assert!(!fire.lit(), "no input: the coal stays");
        let mut s = slots(Some((Cobblestone, 1)), Some((Stick, 1)));
        for _ in 0..100 {
            tick(Oven::Furnace, &mut fire, &mut s);
        }
        assert_eq!(fire.progress, 100, "a stick burns 100 ticks");
        tick(Oven::Furnace, &mut fire, &mut s);
        tick(Oven::Furnace, &mut fire, &mut s);
        assert!(!fire.lit());
        assert_eq!(fire.progress, 96, "falls back two a tick");
    }
}
