use toolkit::prelude::*;

/// Get the weather for a city.
#[tool]
fn get_the_current_weather_for_a_city_given_by_name_in_the_chosen_unit_of_temperature(location: String) -> String {
    location
}

fn main() {
    let _ = toolbox![get_the_current_weather_for_a_city_given_by_name_in_the_chosen_unit_of_temperature];
}
