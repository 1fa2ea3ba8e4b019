// A result of `call_ref` / `invoke_ref` borrows the client's receive buffer, which the next
// call reuses: keeping it alive across a second call must not compile.

fn rpc(client: &mut marshal::rpc::Client) {
    let first: &[u8] = client.call_ref(1, &()).unwrap();
    let second: &[u8] = client.call_ref(1, &()).unwrap();
    assert_eq!(first, second);
}

fn giop(client: &mut marshal::giop::Client) {
    let first: &str = client.invoke_ref("name", &()).unwrap();
    let second: &str = client.invoke_ref("name", &()).unwrap();
    assert_eq!(first, second);
}

fn main() {
    let _ = (rpc, giop);
}
