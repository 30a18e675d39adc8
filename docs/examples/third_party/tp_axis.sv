// tp_axis: a stand-in for a third-party Montgomery multiplier with AXI-Stream-like ports: the
// three operands packed into one input word s_data = {n, b, a} under valid/ready, the result
// on m_data under valid/ready, an asynchronous active-low reset and a parameterised width.
// docs/own-design.md verifies it with a descriptor alone ([core] handshake = "valid_ready",
// ports s_data = "{M, Y, X}").
//
// Radix-2 Montgomery, m_data = a * b * 2^-W mod n (n odd, a, b < n): W iterations of
// acc = (acc + a_i * b + q_i * n) / 2, then one cycle for the final subtraction; m_valid
// stays high until m_ready takes the result. s_ready is high while idle.
module tp_axis #(
    parameter int W = 64
) (
    input  logic           aclk,
    input  logic           aresetn,
    input  logic           s_valid,
    output logic           s_ready,
    input  logic [3*W-1:0] s_data,
    output logic           m_valid,
    input  logic           m_ready,
    output logic [W-1:0]   m_data
);
    logic [W-1:0] xa, b, n;
    logic [W:0]   acc;
    logic [15:0]  i;
    logic         running;
    logic [W+1:0] t, u, d;
    assign t = {1'b0, acc} + (xa[0] ? {2'b00, b} : '0);
    assign u = t + (t[0] ? {2'b00, n} : '0);
    assign d = {1'b0, acc} - {2'b00, n};
    assign s_ready = !running && !m_valid;

    always_ff @(posedge aclk or negedge aresetn) begin
        if (!aresetn) begin
            running <= 1'b0;
            m_valid <= 1'b0;
            m_data  <= '0;
            {n, b, xa} <= '0;
            acc     <= '0;
            i       <= '0;
        end else if (s_valid && s_ready) begin
            {n, b, xa} <= s_data;
            acc     <= '0;
            i       <= '0;
            running <= 1'b1;
        end else if (running) begin
            if (i < 16'(W)) begin
                acc <= u[W+1:1];
                xa  <= xa >> 1;
                i   <= i + 16'd1;
            end else begin
                m_data  <= d[W+1] ? acc[W-1:0] : d[W-1:0];
                m_valid <= 1'b1;
                running <= 1'b0;
            end
        end else if (m_valid && m_ready) begin
            m_valid <= 1'b0;
        end
    end
endmodule
