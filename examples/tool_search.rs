//! A toolbox too large to send whole: twelve tools kept out of the first request
//! (`#[tool(defer)]`), found by the model with `search_tools`, then sent from the next
//! turn on.
//!
//! ```sh
//! cargo run --example tool_search                      # offline: a scripted model; search by words
//! OPENAI_API_KEY=... cargo run --example tool_search   # a real model; search by words and meaning
//! ```
//!
//! With `OPENAI_API_KEY`, `search_tools` also ranks by meaning: the toolbox embeds each
//! deferred tool once with `OpenAiEmbeddings` (`TOOLKIT_EMBEDDING_MODEL`, else
//! `text-embedding-3-small`) and each query as it comes.

use toolkit::agent::Agent;
use toolkit::model::{Model, OpenAiCompatible, OpenAiEmbeddings, ScriptedModel, Turn};
use toolkit::prelude::*;

/// Reserve a table at a restaurant.
#[tool(defer)]
fn make_restaurant_reservation(
    /// The restaurant's name.
    restaurant: String,
    /// How many people.
    people: u32,
    /// When, such as `20:00`.
    time: String,
) -> String {
    format!("table for {people} at {restaurant}, {time}: confirmed")
}

/// The current weather and the forecast for a city.
#[tool(defer)]
fn get_weather(city: String) -> String {
    format!("{city}: 18 °C, clear")
}

/// Search flights between two airports on a date.
#[tool(defer)]
fn search_flights(from: String, to: String, date: String) -> String {
    format!("3 flights {from} → {to} on {date}")
}

/// Send an email message.
#[tool(defer)]
fn send_email(to: String, subject: String, body: String) -> String {
    format!("sent to {to}: {subject} ({} characters)", body.len())
}

/// Put an event on the calendar.
#[tool(defer)]
fn create_calendar_event(title: String, start: String) -> String {
    format!("{title} at {start}: on the calendar")
}

/// Refund a customer's order, in full.
#[tool(defer)]
fn refund_order(order_id: String) -> String {
    format!("order {order_id}: refunded")
}

/// Translate text into another language.
#[tool(defer)]
fn translate_text(text: String, language: String) -> String {
    format!("({language}) {text}")
}

/// Convert an amount between currencies at today's rate.
#[tool(defer)]
fn convert_currency(amount: f64, from: String, to: String) -> String {
    format!("{amount} {from} = {:.2} {to}", amount * 0.92)
}

/// Where a parcel is, by its tracking number.
#[tool(defer)]
fn track_package(tracking_number: String) -> String {
    format!("{tracking_number}: out for delivery")
}

/// Set an alarm.
#[tool(defer)]
fn set_alarm(time: String) -> String {
    format!("alarm at {time}")
}

/// Play a song.
#[tool(defer)]
fn play_song(title: String) -> String {
    format!("playing {title}")
}

/// Look up a word in the dictionary.
#[tool(defer)]
fn define_word(word: String) -> String {
    format!("{word}: (a definition)")
}

/// Add two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

const ASK: &str = "Book a table for 4 at Chez Panisse at 20:00.";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let offline = std::env::args().any(|a| a == "--offline") || std::env::var("OPENAI_API_KEY").is_err();
    let mut tools = toolbox![
        add,
        make_restaurant_reservation,
        get_weather,
        search_flights,
        send_email,
        create_calendar_event,
        refund_order,
        translate_text,
        convert_currency,
        track_package,
        set_alarm,
        play_song,
        define_word,
    ];
    // `names` includes `search_tools`, which the first deferred tool brought.
    let own = tools.names().len() - 1;
    let deferred = tools.names().iter().filter(|name| tools.is_deferred(name)).count();
    println!(
        "{own} tools, {deferred} deferred: the first request sends the other {} and `search_tools`",
        own - deferred
    );

    let scripted = ScriptedModel::new([
        Turn::call("search_tools", r#"{"query": "book a table for dinner"}"#),
        Turn::call("make_restaurant_reservation", r#"{"restaurant": "Chez Panisse", "people": 4, "time": "20:00"}"#),
        Turn::text("Your table for 4 at Chez Panisse is booked for 20:00."),
    ]);
    let model: Box<dyn Model> = if offline {
        Box::new(scripted.clone())
    } else {
        tools = tools.with_embedder(OpenAiEmbeddings::from_env()?);
        Box::new(OpenAiCompatible::from_env()?)
    };

    let agent = Agent::builder(model, tools).build()?;
    println!("\n> {ASK}");
    let run = agent.run(ASK).await?;
    for record in &run.records {
        println!("← {} {} → {}", record.tool, record.arguments, record.content);
    }
    println!("{}", run.text);

    if offline {
        println!("\nWhat each request sent:");
        for (turn, request) in scripted.requests().iter().enumerate() {
            println!("  turn {}: {}", turn + 1, request.tool_names().join(", "));
        }
    }
    Ok(())
}
