// tp_mont: a stand-in for a third-party Montgomery multiplier, written the way cores from
// elsewhere often are (plain Verilog, its own port names, an active-high synchronous reset,
// a start pulse `go` and a level `finish` that stays high until the next `go`, no redundant
// result, no observation ports, no fault parameter). docs/own-design.md verifies it with a
// descriptor alone; the project's own cores follow the lowRISC style instead.
//
// Radix-2 Montgomery, r = a * b * 2^-WIDTH mod n (n odd, a, b < n): WIDTH iterations of
// acc = (acc + a_i * b + q_i * n) / 2 with q_i the low bit after the first addition, then
// one cycle for the final subtraction (acc < 2n).
module tp_mont #(
    parameter WIDTH = 256
) (
    input                  clk,
    input                  rst,
    input                  go,
    input      [WIDTH-1:0] a,
    input      [WIDTH-1:0] b,
    input      [WIDTH-1:0] n,
    output reg [WIDTH-1:0] r,
    output reg             finish
);
    reg [WIDTH-1:0] xa;
    reg [WIDTH:0]   acc;
    reg [15:0]      i;
    reg             running;
    wire [WIDTH+1:0] t = {1'b0, acc} + (xa[0] ? {2'b00, b} : {(WIDTH+2){1'b0}});
    wire [WIDTH+1:0] u = t + (t[0] ? {2'b00, n} : {(WIDTH+2){1'b0}});
    wire [WIDTH+1:0] d = {1'b0, acc} - {2'b00, n};

    always @(posedge clk) begin
        if (rst) begin
            running <= 1'b0;
            finish  <= 1'b0;
            r       <= {WIDTH{1'b0}};
            xa      <= {WIDTH{1'b0}};
            acc     <= {(WIDTH+1){1'b0}};
            i       <= 16'd0;
        end else if (go && !running) begin
            xa      <= a;
            acc     <= {(WIDTH+1){1'b0}};
            i       <= 16'd0;
            running <= 1'b1;
            finish  <= 1'b0;
        end else if (running) begin
            if (i < WIDTH) begin
                acc <= u[WIDTH+1:1];
                xa  <= xa >> 1;
                i   <= i + 16'd1;
            end else begin
                r       <= d[WIDTH+1] ? acc[WIDTH-1:0] : d[WIDTH-1:0];
                finish  <= 1'b1;
                running <= 1'b0;
            end
        end
    end
endmodule
